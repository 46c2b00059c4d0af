import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../host/runtime.js';
import { commandItem, execCall, textReply, turnEnd } from '../../test-support/agent-commands.js';
import { seqText } from '../../test-support/exec.js';
import { hostedRuntime, useMockAgentKit } from '../../test-support/mock-agent-kit.js';
import { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { waitUntil } from '../../test-support/waiting.js';
import { connectWs, type WsPeer } from '../../test-support/ws-peer.js';
import { DEFAULT_OUTPUT_LIMITS, type SupervisedProcess } from '../exec/index.js';
import { serveStdio } from './stdio-carrier.js';
import { startWebServer, type RunningWebServer } from './web-server.js';

/**
 * Flow control from a client's carrier back to the command: a flood whose
 * client stops reading pauses the command (its pty is no longer read) with
 * the output held in this process bounded, and once the client reads again
 * every byte arrives, in order, at every client and in the command's log.
 * The runtime and carriers run in this process so the test can see the
 * supervised process's state; the clients are real sockets and streams.
 */
// ~19 MB through a pty: more than loopback TCP buffers and the flow-control window (2 MB, 3.5 MB encoded) absorb
const LINES = 2_500_000;
const WAIT_MS = 120_000;
/** The high-water mark, plus the batch and the read that arrive as the pause takes effect. */
const UNACKED_LIMIT = DEFAULT_OUTPUT_LIMITS.highWaterBytes + DEFAULT_OUTPUT_LIMITS.maxBatchBytes + 64 * 1024;

const kit = useMockAgentKit({ killChildren: true });

/** Where `text` first differs from the expected sequence (so a failure says which number went missing). */
function firstDifference(text: string, expected: string): string {
  if (text === expected) return 'identical';
  let i = 0;
  while (i < text.length && text[i] === expected[i]) i += 1;
  return `differs at byte ${i} of ${expected.length} (got ${text.length}): ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))}`;
}

/** Waits until the process is paused by flow control, or has exited (then the caller's check fails). */
function pausedOrExited(find: () => SupervisedProcess | undefined): Promise<SupervisedProcess> {
  // Held once seen: the supervisor forgets a process after its exit.
  let child: SupervisedProcess | undefined;
  return waitUntil(
    () => {
      child ??= find();
      return child && (child.outputPaused || child.state === 'exited') && child;
    },
    { what: 'the command to be paused by flow control (or to exit)' },
  );
}

/** The one command running under the supervisor (the test starts exactly one). */
const onlyCommand = (runtime: Runtime) => () =>
  runtime.services.supervisor.list().find((child) => [child.description.label ?? '', ...child.description.argv].join(' ').includes(`1 ${LINES}`));

describe('command output flow control through the carriers', () => {
  it('agent command over WebSocket: a client that stops reading pauses it; then both clients and the log get every byte in order', async () => {
    const { runtime, host, project } = hostedRuntime(kit, 'wheelhouse-flow');
    const server: RunningWebServer = await startWebServer(host, {});
    kit.onCleanup(() => server.close());
    const open = async (name: string): Promise<{ ws: WsPeer; deltas: string[] }> => {
      const ws = await connectWs(server.wsUrl);
      kit.onCleanup(() => ws.socket.terminate());
      const deltas: string[] = [];
      ws.socket.on('message', (data) => {
        const text = String(data);
        if (!text.startsWith('{"method":"item/commandExecution/outputDelta"')) return;
        deltas.push((JSON.parse(text) as { params: { delta: string } }).params.delta);
      });
      await ws.peer.initialize(name);
      return { ws, deltas };
    };
    const fast = await open('fast');
    const slow = await open('slow');
    kit.mock.enqueue(execCall(`seq 1 ${LINES}`), textReply('Counted.'));
    const { thread } = await fast.ws.peer.call('thread/start', { cwd: project, approvalPolicy: 'never' });
    // The slow client stops reading its socket before the command starts.
    slow.ws.socket.pause();
    await fast.ws.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'count' }] });

    const child = await pausedOrExited(onlyCommand(runtime));
    expect(child.state).not.toBe('exited');
    expect(child.outputPaused).toBe(true);
    // What no carrier has sent yet is bounded: no flood piles up in this process.
    expect(child.maxUnackedBytes).toBeLessThanOrEqual(UNACKED_LIMIT);
    expect(host.largestBacklogBytes).toBeLessThanOrEqual(UNACKED_LIMIT * 2);

    slow.ws.socket.resume();
    const items = await Promise.all([commandItem(fast.ws.peer, 'item/completed'), commandItem(slow.ws.peer, 'item/completed')]);
    await turnEnd(fast.ws.peer);
    const expected = seqText(LINES, true);
    expect(items[0]).toMatchObject({ status: 'completed', exitCode: 0 });
    expect(firstDifference(fast.deltas.join(''), expected)).toBe('identical');
    expect(firstDifference(slow.deltas.join(''), expected)).toBe('identical');
    expect(firstDifference(fs.readFileSync(items[0].logPath!, 'utf8'), expected)).toBe('identical');
    expect(child.maxUnackedBytes).toBeLessThanOrEqual(UNACKED_LIMIT);
  }, 180_000);

  it('a paused client that disconnects releases the command: the other client still gets every byte', async () => {
    const { runtime, host, project } = hostedRuntime(kit, 'wheelhouse-flow');
    const server: RunningWebServer = await startWebServer(host, {});
    kit.onCleanup(() => server.close());
    const fast = await connectWs(server.wsUrl);
    const slow = await connectWs(server.wsUrl);
    kit.onCleanup(() => fast.socket.terminate());
    const deltas: string[] = [];
    fast.socket.on('message', (data) => {
      const text = String(data);
      if (text.startsWith('{"method":"item/commandExecution/outputDelta"')) deltas.push((JSON.parse(text) as { params: { delta: string } }).params.delta);
    });
    await fast.peer.initialize('fast');
    await slow.peer.initialize('slow');
    kit.mock.enqueue(execCall(`seq 1 ${LINES}`), textReply('Counted.'));
    const { thread } = await fast.peer.call('thread/start', { cwd: project, approvalPolicy: 'never' });
    slow.socket.pause();
    await fast.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'count' }] });
    const child = await pausedOrExited(onlyCommand(runtime));
    expect(child.outputPaused).toBe(true);

    slow.socket.terminate();
    const item = await commandItem(fast.peer, 'item/completed');
    expect(item).toMatchObject({ status: 'completed', exitCode: 0 });
    expect(firstDifference(deltas.join(''), seqText(LINES, true))).toBe('identical');
  }, 180_000);

  it('command/exec over stdio without acks: a client that does not read pauses it; reading again delivers every byte in order', async () => {
    const { runtime, host, project } = hostedRuntime(kit, 'wheelhouse-flow');
    const input = new PassThrough();
    const output = new PassThrough();
    const ended = serveStdio(host, input, output);
    kit.onCleanup(async () => {
      input.end();
      await ended;
    });
    const peer = new ProtocolPeer({ send: (text) => void input.write(`${text}\n`) });
    const chunks: Buffer[] = [];
    const lines = readline.createInterface({ input: output, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.startsWith('{"method":"command/exec/outputDelta"')) {
        chunks.push(Buffer.from((JSON.parse(line) as { params: { deltaBase64: string } }).params.deltaBase64, 'base64'));
      } else peer.inbox.push(line);
    });
    await peer.initialize('stdio-flood');
    // The client stops reading: the output stream holds what it was sent.
    lines.pause();
    output.pause();
    const exec = peer.request('command/exec', { command: ['seq', '1', String(LINES)], processId: 'flood', tty: true, cwd: project, disableOutputCap: true }, WAIT_MS);

    const child = await pausedOrExited(onlyCommand(runtime));
    expect(child.state).not.toBe('exited');
    expect(child.outputPaused).toBe(true);
    expect(child.maxUnackedBytes).toBeLessThanOrEqual(UNACKED_LIMIT);
    expect(output.writableLength).toBeLessThanOrEqual(UNACKED_LIMIT * 2);

    lines.resume();
    output.resume();
    const response = await exec;
    expect(response).toMatchObject({ result: { exitCode: 0 } });
    expect(firstDifference(Buffer.concat(chunks).toString('utf8'), seqText(LINES, true))).toBe('identical');
    expect(firstDifference(fs.readFileSync(child.logPath, 'utf8'), seqText(LINES, true))).toBe('identical');
  }, 180_000);
});
