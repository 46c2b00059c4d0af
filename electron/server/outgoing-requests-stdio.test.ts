import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../shared/protocol/index.js';
import { approvalRequest, execCall, mockModelConfig, textReply, turnEnd } from '../../test-support/agent-commands.js';
import { killAllChildren } from '../../test-support/child-process.js';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { waitUntil } from '../../test-support/waiting.js';
import type { RequestContext } from '../runtime/context.js';
import type { Runtime } from '../host/runtime.js';
import { RpcHost } from './rpc-host.js';
import { serveStdio } from './stdio-carrier.js';

/**
 * The one OutgoingSender with the runtime in this process: what the event log
 * holds does not depend on which carriers are mounted (none here, or stdio),
 * and a stdio client that connects again is asked what still waits.
 */
let mock: MockModelServer;
const temp = new TempDirs();
const cleanups: (() => Promise<void> | void)[] = [];
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
  temp.cleanup();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killAllChildren();
});

const ctx: RequestContext = { session: { connectionId: 'in-process', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

function startRuntime(): { runtime: Runtime; project: string } {
  const home = temp.make('wheelhouse-outgoing-');
  const project = temp.make('wheelhouse-outgoing-project-');
  fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
  const runtime = createTestRuntime({ home });
  cleanups.push(() => runtime.shutdown());
  return { runtime, project };
}

/** One stdio session (`wheelhouse app-server`'s carrier) on a pair of streams; `hangUp` ends its input. */
function stdioClient(host: RpcHost<Runtime>) {
  const input = new PassThrough();
  const output = new PassThrough();
  const ended = serveStdio(host, input, output);
  const peer = new ProtocolPeer({ send: (text) => void input.write(`${text}\n`) });
  readline.createInterface({ input: output, crlfDelay: Infinity }).on('line', (line) => peer.inbox.push(line));
  const hangUp = async () => {
    input.end();
    await ended;
  };
  cleanups.push(hangUp);
  return { peer, hangUp };
}

/** Approvals as they start waiting (the runtime's own view, no carrier involved). */
function approvalsOf(runtime: Runtime): PendingApproval[] {
  const seen: PendingApproval[] = [];
  cleanups.push(runtime.approvals.watch((pending) => seen.push(pending)));
  return seen;
}

describe('server requests with the runtime in process: one sender', () => {
  it('the event log holds approval.requested once, with no carrier mounted at all', async () => {
    const { runtime, project } = startRuntime();
    const waiting = approvalsOf(runtime);
    const requestsBefore = mock.requests.length;
    mock.enqueue(execCall('touch logged.txt'), textReply('Done.'));
    const { thread } = await runtime.dispatcher.call('thread/start', { cwd: project }, ctx);
    const { turn } = await runtime.dispatcher.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'make it' }] }, ctx);
    const [pending] = await waitUntil(() => (waiting.length > 0 ? waiting : undefined), {
      what: 'the approval to wait',
      wakeOn: (wake) => runtime.approvals.watch(wake),
    });
    await runtime.events.announced();

    const logged = runtime.events.replay(0, 1000, thread.id).events.filter((event) => event.event === 'approval.requested');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      threadId: thread.id,
      turnId: turn.id,
      payload: { requestId: pending!.requestId, command: 'touch logged.txt', availableDecisions: expect.arrayContaining(['accept', 'accept_for_session']) },
    });
    await runtime.dispatcher.call('approval/answer', { requestId: pending!.requestId, decision: 'accept' }, ctx);
    await waitUntil(() => fs.existsSync(path.join(project, 'logged.txt')) || undefined, {
      what: 'the approved command to run',
      wakeOn: (wake) => runtime.events.subscribe(wake),
    });
    // The turn's last model call takes the reply queued for it, which would otherwise answer the next test's turn (one mock for the file).
    await mock.waitForRequests(requestsBefore + 2);
  });

  it('replays a waiting approval to a stdio client that connects again; its answer runs the command', async () => {
    const { runtime, project } = startRuntime();
    const host = new RpcHost(runtime);
    cleanups.push(() => host.close());
    const first = stdioClient(host);
    await first.peer.initialize('first');
    mock.enqueue(execCall('touch replayed.txt'), textReply('Done.'));
    const { thread } = await first.peer.call('thread/start', { cwd: project });
    await first.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'make it' }] });
    const asked = await approvalRequest(first.peer);
    await first.hangUp();

    const second = stdioClient(host);
    await second.peer.initialize('second');
    const replayed = await approvalRequest(second.peer);
    expect(replayed).toEqual(asked);
    second.peer.sendRaw(JSON.stringify({ id: replayed.id, result: { decision: 'accept' } }));
    expect((await second.peer.inbox.notification('serverRequest/resolved')).params).toEqual({ threadId: thread.id, requestId: asked.id });
    expect((await turnEnd(second.peer)).status).toBe('completed');
    expect(fs.existsSync(path.join(project, 'replayed.txt'))).toBe(true);
    expect(runtime.outgoing.waiting()).toEqual([]);
  });
});
