import { describe, expect, it } from 'vitest';
import type { ServerRequestMethod, ServerRequestParamsOf } from '../../../shared/protocol/index.js';
import { OutgoingSender, type ClientConnection, type OutgoingRequest } from './outgoing-sender.js';

/** A client as a carrier registers it: it records the requests written to it. */
function client(connectionId: string, answers: (method: ServerRequestMethod) => boolean = () => true) {
  const asked: OutgoingRequest[] = [];
  const connection: ClientConnection & { asked: OutgoingRequest[] } = {
    connectionId,
    isOpen: true,
    canAnswer: answers,
    sendRequest: (request) => asked.push(request),
    sendNotification: () => undefined,
    unsentBytes: 0,
    onceDrained: (callback) => callback(),
    asked,
  };
  return connection;
}

const approval: ServerRequestParamsOf<'item/commandExecution/requestApproval'> = {
  threadId: 'thr-1',
  turnId: 'turn-1',
  itemId: 'item-1',
  startedAtMs: 0,
  command: 'touch x',
  cwd: '/tmp',
};

const toolCall: ServerRequestParamsOf<'item/tool/call'> = {
  threadId: 'thr-1',
  turnId: 'turn-1',
  callId: 'call-1',
  namespace: null,
  tool: 'lookup',
  arguments: {},
};

const ask = (sender: OutgoingSender, requestId = 'approval-item-1', threadId = 'thr-1') =>
  sender.request('item/commandExecution/requestApproval', { ...approval, threadId }, { requestId, threadId, turnId: 'turn-1', audience: { kind: 'every' } });

describe('OutgoingSender', () => {
  it('asks every client that can answer; the first answer wins and a later one is told notWaiting', async () => {
    const sender = new OutgoingSender();
    const alice = client('alice');
    const bob = client('bob');
    const http = client('http', (method) => method === 'item/tool/call');
    sender.attach(alice);
    sender.attach(bob);
    sender.attach(http);
    const answered = ask(sender);
    expect(alice.asked.map((r) => r.id)).toEqual(['approval-item-1']);
    expect(bob.asked).toEqual(alice.asked);
    expect(http.asked).toEqual([]);

    expect(await sender.answer('bob', { id: 'approval-item-1', result: { decision: 'decline' } })).toEqual({ kind: 'taken' });
    await expect(answered).resolves.toEqual({ decision: 'decline' });
    const late = await sender.answer('alice', { id: 'approval-item-1', result: { decision: 'accept' } });
    expect(late).toMatchObject({ kind: 'notWaiting', error: { reason: 'notWaiting', message: expect.stringMatching(/answered/) } });
    // A client never asked cannot answer either.
    const stranger = await sender.answer('http', { id: 'approval-item-1', result: { decision: 'accept' } });
    expect(stranger.kind).toBe('notWaiting');
  });

  it("one client's refusal or bad answer leaves a request to every client waiting for the others", async () => {
    const sender = new OutgoingSender();
    sender.attach(client('alice'));
    sender.attach(client('bob'));
    const answered = ask(sender);
    const refused = await sender.answer('alice', { id: 'approval-item-1', error: { code: -32601, message: 'no handler' } });
    expect(refused).toMatchObject({ kind: 'refused', error: { reason: 'refused' } });
    const bad = await sender.answer('alice', { id: 'approval-item-1', result: { decision: 'maybe' } });
    expect(bad).toMatchObject({ kind: 'refused', error: { reason: 'badAnswer' } });
    expect(sender.isWaiting('approval-item-1')).toBe(true);
    await sender.answer('bob', { id: 'approval-item-1', result: { decision: 'accept' } });
    await expect(answered).resolves.toEqual({ decision: 'accept' });
  });

  it('replays what waits to a client that attaches later, once; a request for every client waits when nobody is there', async () => {
    const sender = new OutgoingSender();
    const answered = ask(sender);
    expect(sender.waiting()).toHaveLength(1);
    const late = client('late');
    const detach = sender.attach(late);
    expect(late.asked.map((r) => r.id)).toEqual(['approval-item-1']);
    detach();
    const again = client('late-again');
    sender.attach(again);
    expect(again.asked.map((r) => r.id)).toEqual(['approval-item-1']);
    await sender.answer('late-again', { id: 'approval-item-1', result: { decision: 'accept' } });
    await expect(answered).resolves.toEqual({ decision: 'accept' });
  });

  it("withdraws a thread's requests together, and only that thread's", async () => {
    const sender = new OutgoingSender();
    sender.attach(client('alice'));
    const first = ask(sender, 'approval-a', 'thr-1');
    const other = ask(sender, 'approval-b', 'thr-2');
    expect(sender.cancelThread('thr-1')).toBe(1);
    await expect(first).rejects.toMatchObject({ reason: 'canceled' });
    expect(sender.waiting().map((w) => w.request.id)).toEqual(['approval-b']);
    const late = await sender.answer('alice', { id: 'approval-a', result: { decision: 'accept' } });
    expect(late).toMatchObject({ kind: 'notWaiting', error: { message: expect.stringMatching(/canceled/) } });
    await sender.answer('alice', { id: 'approval-b', result: { decision: 'accept' } });
    await expect(other).resolves.toEqual({ decision: 'accept' });
  });

  it('a request for one connection fails at once when it is not there, and when it leaves', async () => {
    const sender = new OutgoingSender();
    const audience = { kind: 'one', connectionId: 'owner' } as const;
    await expect(sender.request('item/tool/call', toolCall, { threadId: 'thr-1', audience })).rejects.toMatchObject({ reason: 'closed' });
    const owner = client('owner');
    const other = client('other');
    const detach = sender.attach(owner);
    sender.attach(other);
    const call = sender.request('item/tool/call', toolCall, { threadId: 'thr-1', audience });
    expect(owner.asked).toHaveLength(1);
    expect(other.asked).toEqual([]);
    detach();
    await expect(call).rejects.toMatchObject({ reason: 'closed' });
  });

  it('an answer the check refuses keeps the request waiting', async () => {
    const sender = new OutgoingSender();
    sender.attach(client('alice'));
    const params = { threadId: 'thr-1', turnId: null, serverName: 's', mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } } as unknown as ServerRequestParamsOf<'mcpServer/elicitation/request'>;
    const answered = sender.request('mcpServer/elicitation/request', params, {
      requestId: 'elicitation-1',
      threadId: 'thr-1',
      audience: { kind: 'every' },
      check: (result) => ((result as { content?: unknown }).content === undefined ? 'content is missing' : null),
    });
    expect(await sender.answer('alice', { id: 'elicitation-1', result: { action: 'accept' } })).toMatchObject({ kind: 'refused' });
    expect(await sender.answer('alice', { id: 'elicitation-1', result: { action: 'accept', content: { name: 'x' } } })).toEqual({ kind: 'taken' });
    await expect(answered).resolves.toMatchObject({ action: 'accept', content: { name: 'x' } });
  });
});
