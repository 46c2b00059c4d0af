/**
 * Event fan-out of a streaming agent reply: `wheelhouse serve` as a real
 * process, a mock provider streaming thousands of deltas, 4 WebSocket clients
 * receiving every one. Reports delivered events/s per client and the server's
 * CPU use (from /proc) while it streams.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MockScript } from '../test-support/mock-model/index.js';
import { startMockModelServer } from '../test-support/mock-model/index.js';
import { startServe } from '../test-support/serve-process.js';
import { connectWs } from '../test-support/ws-peer.js';

export interface FanoutOptions {
  readonly home: string;
  readonly clients: number;
  readonly deltas: number;
  /** Deltas sent back to back before the mock pauses 4 ms. */
  readonly burst: number;
}

function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the full line: 12 and 13 after the ") " split.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function agentFanout(options: FanoutOptions) {
  const mock = await startMockModelServer();
  fs.writeFileSync(
    path.join(options.home, 'config.toml'),
    `model = "deepseek-chat"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${mock.url}"\nwire_api = "chat"\n`,
  );
  const serve = await startServe({ home: options.home, ...(process.env.FANOUT_PROF ? { nodeArgs: ["--cpu-prof", "--cpu-prof-dir=/tmp/prof"] } : {}) });
  const peers = await Promise.all(Array.from({ length: options.clients }, () => connectWs(serve.wsUrl)));
  try {
    for (const { peer } of peers) await peer.initialize();
    const driver = peers[0]!.peer;
    const { thread } = await driver.call('thread/start', { cwd: options.home });
    const script: MockScript[number][] = [];
    for (let i = 0; i < options.deltas; i++) {
      script.push({ type: 'text', text: `tok${i} ` });
      if (i % options.burst === options.burst - 1) script.push({ type: 'delay', ms: 4 });
    }
    script.push({ type: 'finish' });
    mock.enqueue(script);

    const counts = peers.map(() => 0);
    let first = 0;
    let last = 0;
    for (const [index, { socket }] of peers.entries()) {
      socket.on('message', (data) => {
        const text = data.toString();
        if (!text.includes('"item/agentMessage/delta"')) return;
        counts[index]! += 1;
        const now = performance.now();
        if (first === 0) first = now;
        last = now;
      });
    }
    const pid = serve.process.child.pid!;
    const cpuBefore = cpuSeconds(pid);
    const wallBefore = performance.now();
    await driver.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'stream please' }] });
    await driver.inbox.notification('turn/completed', 120_000);
    const wall = (performance.now() - wallBefore) / 1000;
    const cpu = cpuSeconds(pid) - cpuBefore;
    const seconds = (last - first) / 1000;
    return {
      clients: options.clients,
      deltasPerClient: counts,
      eventsPerSecondPerClient: Math.round(Math.min(...counts) / seconds),
      serverCpuPercentOfOneCore: Math.round((cpu / wall) * 1000) / 10,
      wallSeconds: Math.round(wall * 100) / 100,
      note: 'includes SSE parsing of the provider stream; eventFanout isolates the runtime',
    };
  } finally {
    for (const { socket } of peers) socket.close();
    await serve.stop();
    await mock.close();
  }
}
