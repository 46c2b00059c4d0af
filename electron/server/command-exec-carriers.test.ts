import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, type NotificationMessage, type ResponseMessage } from '../../shared/protocol/index.js';
import { DEFAULT_OUTPUT_LIMITS } from '../exec/index.js';
import { startAppServer, type AppServerProcess } from '../../test-support/app-server-process.js';
import { killAllChildren } from '../../test-support/child-process.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { startServe } from '../../test-support/serve-process.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { waitUntil } from '../../test-support/waiting.js';
import { connectWs } from '../../test-support/ws-peer.js';

const temp = new TempDirs();
afterAll(async () => {
  await killAllChildren();
  temp.cleanup();
});

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** Everything a command/exec streamed to this peer so far, decoded; waits until `pattern` shows up. */
async function screenUntil(peer: ProtocolPeer, processId: string, pattern: RegExp, seen: { text: string }): Promise<RegExpMatchArray> {
  for (;;) {
    const match = seen.text.match(pattern);
    if (match) return match;
    const received = await peer.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'command/exec/outputDelta',
      `output matching ${pattern} (so far: ${JSON.stringify(seen.text.slice(-300))})`,
    );
    const params = (received.message as NotificationMessage).params as { processId: string; deltaBase64: string };
    expect(params.processId).toBe(processId);
    seen.text += Buffer.from(params.deltaBase64, 'base64').toString('utf8');
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function waitForPid(file: string): Promise<number> {
  return waitUntil(
    () => {
      const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
      return /^\d+$/.test(text) && Number(text);
    },
    { what: `a pid in ${file}` },
  );
}

async function waitUntilGone(pids: number[]): Promise<void> {
  await waitUntil(() => !pids.some(isAlive), { what: `processes ${pids.join(', ')} to be gone` });
}

describe('command/exec over stdio: the person\'s terminal', () => {
  const started: AppServerProcess[] = [];
  afterEach(async () => {
    for (const server of started.splice(0)) await server.process.stop('SIGKILL');
  });
  const start = () => {
    const server = startAppServer(temp.make());
    started.push(server);
    return server;
  };

  it('opens a shell in a pty, echoes what is typed, resizes and terminates', async () => {
    const { peer } = start();
    await peer.initialize();
    const cwd = temp.make();
    const params = { command: ['/bin/sh'], processId: 'term-1', tty: true, cwd, size: { cols: 80, rows: 24 }, disableOutputCap: true };
    const exec = peer.request('command/exec', params, 30_000);
    const seen = { text: '' };
    await peer.call('command/exec/write', { processId: 'term-1', deltaBase64: base64('echo "hi $((40+2))"; pwd\n') });
    await screenUntil(peer, 'term-1', /hi 42/, seen);
    expect(seen.text).toContain(cwd);

    await peer.call('command/exec/resize', { processId: 'term-1', size: { cols: 132, rows: 40 } });
    await peer.call('command/exec/write', { processId: 'term-1', deltaBase64: base64('stty size\n') });
    await screenUntil(peer, 'term-1', /40 132/, seen);

    // A second command with the same processId on this connection is refused while the first runs.
    const duplicate = await peer.request('command/exec', params);
    expect('error' in duplicate && duplicate.error.code).toBe(ErrorCode.InvalidRequest);

    await peer.call('command/exec/terminate', { processId: 'term-1' });
    const response = (await exec) as ResponseMessage;
    if (!('result' in response)) throw new Error(JSON.stringify(response));
    expect(response.result).toMatchObject({ stdout: '', stderr: '' });
    expect((response.result as { exitCode: number }).exitCode).toBeGreaterThan(128); // ended by a signal
    // Gone: follow-ups are typed errors.
    const late = await peer.request('command/exec/write', { processId: 'term-1', deltaBase64: base64('x') });
    expect('error' in late && late.error.message).toMatch(/no running command\/exec with processId term-1/);
  });

  it('runs a buffered command and refuses bad combinations with clear errors', async () => {
    const { peer } = start();
    await peer.initialize();
    const result = await peer.call('command/exec', { command: ['/bin/sh', '-c', 'echo out; echo err >&2; exit 3'], cwd: temp.make() });
    expect(result).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    const noId = await peer.request('command/exec', { command: ['/bin/sh'], tty: true });
    expect('error' in noId && noId.error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringMatching(/processId/) });
    const relative = await peer.request('command/exec', { command: ['ls'], cwd: 'relative/folder' });
    expect('error' in relative && relative.error.message).toMatch(/absolute/);
    const missing = await peer.request('command/exec', { command: ['no-such-command-wheelhouse'], cwd: temp.make() });
    expect('error' in missing && missing.error.message).toMatch(/command not found/);
    const capped = await peer.call('command/exec', { command: ['/bin/sh', '-c', 'printf 0123456789'], cwd: temp.make(), outputBytesCap: 4 });
    expect(capped.stdout).toBe('0123');
  });

  it('pauses a flood for a client that acknowledges late (outputAck), and loses nothing', async () => {
    const { peer } = start();
    await peer.initialize();
    const lines = 1_000_000; // ~6.9 MB: well past the high-water mark
    const exec = peer.request(
      'command/exec',
      { command: ['seq', '1', String(lines)], processId: 'flood', tty: true, cwd: temp.make(), disableOutputCap: true, outputAck: true },
      60_000,
    );
    const chunks: Buffer[] = [];
    let received = 0;
    const next = async () => {
      const message = (await peer.inbox.take(
        (r) => r.kind === 'notification' && r.message.method === 'command/exec/outputDelta' && (r.message.params as { processId: string }).processId === 'flood',
        'flood output',
        30_000,
      )).message as NotificationMessage;
      const bytes = Buffer.from((message.params as { deltaBase64: string }).deltaBase64, 'base64');
      chunks.push(bytes);
      received += bytes.length;
      return bytes.length;
    };
    // Flow control pauses the command once more than its high-water mark is unacknowledged.
    while (received <= DEFAULT_OUTPUT_LIMITS.highWaterBytes) await next();
    // Nothing acknowledged yet: the command must be held, not streamed on. Meanwhile a second flood of the
    // same size on the same connection (without outputAck: consumed once sent) runs to its end; a broken
    // pause would deliver megabytes of the first in that time.
    const reference = await peer.request(
      'command/exec',
      { command: ['seq', '1', String(lines)], processId: 'reference', tty: true, cwd: temp.make(), disableOutputCap: true },
      60_000,
    );
    expect(reference).toMatchObject({ result: { exitCode: 0 } });
    for (const message of peer.inbox.drainNotifications()) {
      const params = message.params as { processId: string; deltaBase64: string };
      if (message.method !== 'command/exec/outputDelta' || params.processId !== 'flood') continue;
      const bytes = Buffer.from(params.deltaBase64, 'base64');
      chunks.push(bytes);
      received += bytes.length;
    }
    // The mark, plus the batch and the read that arrive as the pause takes effect.
    expect(received).toBeLessThanOrEqual(DEFAULT_OUTPUT_LIMITS.highWaterBytes + DEFAULT_OUTPUT_LIMITS.maxBatchBytes + 64 * 1024);
    await peer.call('command/exec/ack', { processId: 'flood', bytes: received });
    const expected = Array.from({ length: lines }, (_, i) => `${i + 1}\r\n`).join('');
    let acked = received;
    // Not awaited one by one (output keeps coming meanwhile), but all answered before the server goes.
    const acks: Promise<unknown>[] = [];
    while (received < expected.length) {
      const bytes = await next();
      acked += bytes;
      acks.push(peer.request('command/exec/ack', { processId: 'flood', bytes }));
    }
    expect(Buffer.concat(chunks).toString('latin1')).toBe(expected);
    expect(acked).toBe(expected.length);
    expect(await exec).toMatchObject({ result: { exitCode: 0 } });
    await Promise.all(acks);
  });

  it('kills the whole tree, grandchildren included, when the connection closes', async () => {
    const { peer, endInput, exited } = start();
    await peer.initialize();
    const exec = peer.request('command/exec', { command: ['/bin/sh'], processId: 'term-2', tty: true, cwd: temp.make() }, 30_000);
    const seen = { text: '' };
    await peer.call('command/exec/write', {
      processId: 'term-2',
      deltaBase64: base64('sleep 300 & echo "child=$!"; sh -c \'sleep 301 & echo "grandchild=$!"; wait\' &\n'),
    });
    const child = Number((await screenUntil(peer, 'term-2', /child=(\d+)/, seen))[1]);
    const grandchild = Number((await screenUntil(peer, 'term-2', /grandchild=(\d+)/, seen))[1]);
    expect(isAlive(child) && isAlive(grandchild)).toBe(true);
    endInput();
    // Its answer still comes (a signal ended the shell), then the server exits cleanly.
    expect(await exec).toMatchObject({ result: { exitCode: expect.any(Number), stdout: '', stderr: '' } });
    expect(await exited).toEqual({ code: 0, signal: null });
    await waitUntilGone([child, grandchild]);
  });
});

describe('command/exec over WebSocket: output and life are scoped to one connection', () => {
  it('streams only to the connection that started it, and a closed socket kills its tree while the server runs on', async () => {
    const server = await startServe({ home: temp.make() });
    try {
      const owner = await connectWs(server.wsUrl);
      const other = await connectWs(server.wsUrl);
      await owner.peer.initialize('owner');
      await other.peer.initialize('other');
      void owner.peer.request('command/exec', { command: ['/bin/sh'], processId: 'shared-name', tty: true, cwd: temp.make() }, 30_000).catch(() => undefined);
      const seen = { text: '' };
      await owner.peer.call('command/exec/write', {
        processId: 'shared-name',
        deltaBase64: base64('sleep 300 & echo "child=$!"; sh -c \'sleep 301 & echo "grandchild=$!"; wait\' &\n'),
      });
      const child = Number((await screenUntil(owner.peer, 'shared-name', /child=(\d+)/, seen))[1]);
      const grandchild = Number((await screenUntil(owner.peer, 'shared-name', /grandchild=(\d+)/, seen))[1]);
      // Process ids are per connection: the other client neither sees nor reaches this one.
      const foreign = await other.peer.request('command/exec/write', { processId: 'shared-name', deltaBase64: base64('exit\n') });
      expect('error' in foreign && foreign.error.message).toMatch(/no running command\/exec/);
      expect(other.peer.inbox.drainNotifications().filter((n) => n.method === 'command/exec/outputDelta')).toEqual([]);

      // A buffered command (no processId, no timeout) belongs to the connection as well.
      const pidFile = path.join(temp.make(), 'buffered.pid');
      void owner.peer
        .request('command/exec', { command: ['/bin/sh', '-c', `echo $$ > ${pidFile}; exec sleep 302`], cwd: temp.make(), disableTimeout: true }, 30_000)
        .catch(() => undefined);
      const buffered = await waitForPid(pidFile);

      owner.socket.close();
      await owner.closed;
      await waitUntilGone([child, grandchild, buffered]);
      // The server is still up and serving the other client.
      expect(await other.peer.call('command/exec', { command: ['/bin/sh', '-c', 'echo still-here'], cwd: temp.make() })).toMatchObject({
        exitCode: 0,
        stdout: 'still-here\n',
      });
      other.socket.close();
    } finally {
      await server.stop();
    }
  });
});
