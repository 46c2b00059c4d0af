import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, type NotificationMessage, type RequestMessage } from '../../shared/protocol/index.js';
import { approvalRequest, execCall, textReply, turnEnd } from '../../test-support/agent-commands.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';
import type { ServeProcess } from '../../test-support/serve-process.js';
import { connectWs } from '../../test-support/ws-peer.js';

/**
 * The one OutgoingSender seen from WebSocket clients of `wheelhouse serve`:
 * a waiting approval is replayed to a client that reconnects, the first answer
 * wins across clients and a later one is refused, and interrupting the turn
 * withdraws it from everyone with `serverRequest/resolved`.
 */
const served = useServedAgentHomes();

async function connect(server: ServeProcess, name: string) {
  const ws = await connectWs(server.wsUrl);
  await ws.peer.initialize(name);
  return ws;
}

/** Starts a turn whose command waits for approval; resolves once `peer` got the request. */
async function waitingApproval(peer: ProtocolPeer, project: string, file: string) {
  served.mock.enqueue(execCall(`touch ${file}`), textReply('Done.'));
  const { thread } = await peer.call('thread/start', { cwd: project });
  const { turn } = await peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'make the file' }] });
  const request = await approvalRequest(peer);
  return { thread, turn, request };
}

async function resolvedNotice(peer: ProtocolPeer): Promise<unknown> {
  return ((await peer.inbox.notification('serverRequest/resolved')) as NotificationMessage).params;
}

/** True once a round trip after initialize brought no server request: the sender replays at attach, before any later answer. */
async function noRequestAfterRoundTrip(peer: ProtocolPeer): Promise<boolean> {
  await peer.call('approval/list', {});
  return peer.inbox.peek((r) => r.kind === 'request') === undefined;
}

describe('server requests over WebSocket: one sender', () => {
  it('replays a waiting approval to a client that reconnects; its answer wins, a later one is refused', async () => {
    const { home, project } = served.makeHome('wheelhouse-outgoing-');
    const server = await serve(home);
    const alice = await connect(server, 'alice');
    const bob = await connect(server, 'bob');
    const { thread, request } = await waitingApproval(alice.peer, project, 'made.txt');
    expect((await approvalRequest(bob.peer)).id).toBe(request.id);

    // Alice's window reloads: the socket closes, a new one connects and is asked again, under the same id.
    alice.socket.close();
    await alice.closed;
    const again = await connect(server, 'alice-again');
    const replayed: RequestMessage = await approvalRequest(again.peer);
    expect(replayed).toEqual(request);

    again.peer.sendRaw(JSON.stringify({ id: replayed.id, result: { decision: 'accept' } }));
    expect(await resolvedNotice(bob.peer)).toEqual({ threadId: thread.id, requestId: request.id });
    // Bob answers late, on the wire and through approval/answer: the first answer stands.
    bob.peer.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'decline' } }));
    const late = await bob.peer.request('approval/answer', { requestId: request.id, decision: 'decline' });
    expect('error' in late && late.error).toMatchObject({ code: ErrorCode.InvalidRequest, message: expect.stringMatching(/not waiting/) });
    expect((await turnEnd(again.peer)).status).toBe('completed');
    expect(fs.existsSync(path.join(project, 'made.txt'))).toBe(true);
    expect((await bob.peer.call('approval/list', {})).data).toEqual([]);
  });

  it('turn/interrupt withdraws the waiting approval from every client; nobody is asked again', async () => {
    const { home, project } = served.makeHome('wheelhouse-outgoing-');
    const server = await serve(home);
    const alice = await connect(server, 'alice');
    const bob = await connect(server, 'bob');
    const { thread, turn, request } = await waitingApproval(alice.peer, project, 'never.txt');
    await approvalRequest(bob.peer);

    await alice.peer.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    const withdrawn = { threadId: thread.id, requestId: request.id };
    expect(await resolvedNotice(alice.peer)).toEqual(withdrawn);
    expect(await resolvedNotice(bob.peer)).toEqual(withdrawn);
    expect((await turnEnd(bob.peer)).status).toBe('interrupted');

    bob.peer.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'accept' } }));
    const late = await bob.peer.request('approval/answer', { requestId: request.id, decision: 'accept' });
    expect('error' in late && late.error.code).toBe(ErrorCode.InvalidRequest);
    const carol = await connect(server, 'carol');
    expect(await noRequestAfterRoundTrip(carol.peer)).toBe(true);
    expect(fs.existsSync(path.join(project, 'never.txt'))).toBe(false);
  });
});

function serve(home: string): Promise<ServeProcess> {
  return served.serve(home);
}
