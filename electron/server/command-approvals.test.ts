import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NotificationMessage, ThreadItem } from '../../shared/protocol/index.js';
import {
  approvalRequest,
  commandItem,
  execCall,
  lastToolMessage,
  textReply,
  turnEnd,
  type CommandItem,
} from '../../test-support/agent-commands.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';
import { waitUntil } from '../../test-support/waiting.js';

/**
 * The agent runs a command with the person in control, over real WebSockets
 * to `wheelhouse serve`, with the mock model asking for `exec_command`.
 */
const served = useServedAgentHomes();
const { serve, client } = served;


const makeHome = () => served.makeHome('wheelhouse-approvals-');

const reply = textReply;
const completedCommand = (peer: ProtocolPeer) => commandItem(peer, 'item/completed');
const toolMessageIn = (index: number) => lastToolMessage(served.mock, index);

describe('commands and approvals over WebSocket', () => {
  it('asks every client; the first answer wins, the other sees serverRequest/resolved; output streams', async () => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    const bob = await client(server, 'bob');
    served.mock.enqueue(execCall('touch made.txt && echo approved-output'), reply('Done.'));
    const before = served.mock.requests.length;
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'make the file' }] });

    const toAlice = await approvalRequest(alice);
    const toBob = await approvalRequest(bob);
    expect(toBob.id).toBe(toAlice.id);
    const params = toAlice.params as Record<string, unknown>;
    expect(params).toMatchObject({ threadId: thread.id, command: 'touch made.txt && echo approved-output', kind: 'command' });
    expect(params['availableDecisions']).toEqual(expect.arrayContaining(['accept', 'acceptForSession', 'decline', 'cancel']));
    // The item was announced before the request, and nothing ran yet.
    const started = await alice.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'item/started' && (r.message.params as { item: ThreadItem }).item.type === 'commandExecution',
      'the command item',
    );
    expect(((started.message as NotificationMessage).params as { item: CommandItem }).item).toMatchObject({ type: 'commandExecution', id: params['itemId'], status: 'inProgress' });
    expect(fs.existsSync(path.join(project, 'made.txt'))).toBe(false);
    expect((await alice.call('approval/list', {})).data.map((a) => a.requestId)).toEqual([toAlice.id]);
    // While it waits the thread says so (Codex's waitingOnApproval flag), announced and on read.
    const waiting = { type: 'active', activeFlags: ['waitingOnApproval'] };
    const statusIs = (status: unknown) => (r: { kind: string; message: unknown }) =>
      r.kind === 'notification' && JSON.stringify((r.message as NotificationMessage).params) === JSON.stringify({ threadId: thread.id, status });
    await alice.inbox.take(statusIs({ type: 'active', activeFlags: [] }), "the turn's active status");
    await alice.inbox.take(statusIs(waiting), 'the waiting status');
    expect((await alice.call('thread/read', { threadId: thread.id })).thread.status).toEqual(waiting);

    bob.sendRaw(JSON.stringify({ id: toBob.id, result: { decision: 'accept' } }));
    const resolved = await alice.inbox.notification('serverRequest/resolved');
    expect(resolved.params).toEqual({ threadId: thread.id, requestId: toAlice.id });
    await alice.inbox.take(statusIs({ type: 'active', activeFlags: [] }), 'the status without the waiting flag');
    // A late answer through the method is a typed error and changes nothing.
    const late = await alice.request('approval/answer', { requestId: toAlice.id, decision: 'decline' });
    expect('error' in late && late.error.message).toMatch(/not waiting/);

    const delta = await alice.inbox.notification('item/commandExecution/outputDelta');
    expect((delta.params as { itemId: string }).itemId).toBe(params['itemId']);
    const item = await completedCommand(alice);
    expect(item).toMatchObject({ status: 'completed', exitCode: 0, cwd: fs.realpathSync(project) });
    // Who decided, for every client to show: the person approved.
    expect(item.outcome).toEqual({ by: 'person', answer: 'approved', host: null });
    expect(item.aggregatedOutput).toContain('approved-output');
    expect(item.durationMs).toBeGreaterThanOrEqual(0);
    expect(item.processId).toMatch(/^proc-/);
    expect(fs.existsSync(path.join(project, 'made.txt'))).toBe(true);
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(toolMessageIn(before + 1)).toMatch(/^Exit code: 0\n[\s\S]*approved-output/);
    expect((await alice.call('approval/list', {})).data).toEqual([]);
  });

  it('a declined command does not run; the model reads why and the turn goes on', async () => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    served.mock.enqueue(execCall('touch declined.txt'), reply('Understood.'));
    const before = served.mock.requests.length;
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    const request = await approvalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'decline' } }));
    const item = await completedCommand(alice);
    expect(item.status).toBe('declined');
    expect(item.exitCode).toBeNull();
    // The person's answer is recorded for people; the words for the model stay with the model.
    expect(item.outcome).toEqual({ by: 'person', answer: 'declined', host: null });
    expect(item.aggregatedOutput).toBeNull();
    expect(item.modelOutput).toMatch(/Do not retry it/);
    expect((await turnEnd(alice)).status).toBe('completed');
    expect(fs.existsSync(path.join(project, 'declined.txt'))).toBe(false);
    expect(toolMessageIn(before + 1)).toMatch(/declined/);
    const read = await alice.call('thread/read', { threadId: thread.id, includeTurns: true });
    const stored = read.thread.turns.flatMap((t) => t.items).find((i) => i.type === 'commandExecution');
    expect(stored).toMatchObject({ status: 'declined', outcome: { by: 'person', answer: 'declined' } });
  });

  it('cancel ends the turn interrupted; accept-for-session stops asking for that command in the thread until revoked', async () => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    const { thread } = await alice.call('thread/start', { cwd: project });

    served.mock.enqueue(execCall('touch once.txt'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    const first = await approvalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: first.id, result: { decision: 'cancel' } }));
    expect(await completedCommand(alice)).toMatchObject({ status: 'declined', outcome: { by: 'person', answer: 'declinedAndStopped' } });
    expect((await turnEnd(alice)).status).toBe('interrupted');

    served.mock.enqueue(execCall('touch once.txt'), reply('ok'), execCall('touch once.txt', {}, 'call_again'), reply('ok again'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'again' }] });
    const second = await approvalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: second.id, result: { decision: 'acceptForSession' } }));
    expect((await completedCommand(alice)).status).toBe('completed');
    await turnEnd(alice);
    expect((await alice.call('approval/grants/list', { threadId: thread.id })).data.map((g) => g.prefix)).toEqual([['touch', 'once.txt']]);

    // The same command runs without a request now.
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'third' }] });
    expect((await completedCommand(alice)).status).toBe('completed');
    await turnEnd(alice);
    expect(alice.inbox.drainNotifications().length).toBeGreaterThan(0);

    expect(await alice.call('approval/grants/revoke', { threadId: thread.id, prefix: ['touch', 'once.txt'] })).toEqual({ revoked: true });
    served.mock.enqueue(execCall('touch once.txt', {}, 'call_after_revoke'), reply('asked'));
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'fourth' }] });
    const fourth = await approvalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: fourth.id, result: { decision: 'decline' } }));
    expect((await turnEnd(alice)).status).toBe('completed');
  });

  it('a client that connects later gets the waiting request; after a restart the approval ends clearly', async () => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    served.mock.enqueue(execCall('touch never.txt'));
    const { thread } = await alice.call('thread/start', { cwd: project });
    await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    const request = await approvalRequest(alice);

    const latecomer = await client(server, 'reloaded-window');
    expect((await approvalRequest(latecomer)).id).toBe(request.id);

    await server.stop();
    const again = await serve(home);
    const bob = await client(again, 'bob');
    expect((await bob.call('approval/list', {})).data).toEqual([]);
    const answer = await bob.request('approval/answer', { requestId: String(request.id), decision: 'accept' });
    expect('error' in answer && answer.error.message).toMatch(/not waiting/);
    const read = await bob.call('thread/read', { threadId: thread.id, includeTurns: true });
    const turn = read.thread.turns.at(-1)!;
    expect(turn.status).toBe('interrupted');
    const item = turn.items.find((i) => i.type === 'commandExecution') as CommandItem;
    expect(item.status).toBe('declined');
    // A clean stop ends the wait at once; a crash leaves the pending row, which the next start ends the same way.
    expect(item).toMatchObject({ aggregatedOutput: null, outcome: { by: 'turnEnded' } });
    expect(fs.existsSync(path.join(project, 'never.txt'))).toBe(false);
  });

  it('interrupting a turn kills the command and everything it started', async () => {
    const { home, project } = makeHome();
    const server = await serve(home);
    const alice = await client(server, 'alice');
    const script = 'sleep 300 & echo $! > pids; (sleep 300 & echo $! >> pids; wait) & echo started; wait';
    served.mock.enqueue(execCall(script, { yield_time_ms: 60_000 }), reply('stopped'));
    const { thread } = await alice.call('thread/start', { cwd: project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const { turn } = await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'go' }] });
    await alice.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'item/commandExecution/outputDelta' && String((r.message.params as { delta: string }).delta).includes('started'),
      'the command to start',
    );
    const pids = await waitForPids(path.join(project, 'pids'), 2);
    await alice.call('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    const item = await completedCommand(alice);
    expect(item.status).toBe('failed');
    expect((await turnEnd(alice)).status).toBe('interrupted');
    for (const pid of pids) expect(alive(pid), `pid ${pid} survived: ${fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : ''}`).toBe(false);
  });
});

function waitForPids(file: string, count: number): Promise<number[]> {
  return waitUntil(
    () => {
      const pids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
      return pids.length >= count && pids;
    },
    { what: `${file} to list ${count} pids` },
  );
}

function alive(pid: number): boolean {
  // A killed process nobody reaped yet (a zombie, state Z) is dead all the same.
  try {
    if (/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false;
  } catch {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
