import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConversationItem, RequestMessage, Turn } from '../../shared/protocol/index.js';
import {
  approvalRequest,
  commandItem,
  execCall,
  textReply,
  turnEnd,
  type CommandItem,
} from '../../test-support/agent-commands.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import type { ServeProcess } from '../../test-support/serve-process.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * A second client (or a reloaded window) opens a thread while its turn runs:
 * thread/resume and thread/read show the turn's items that are still waiting
 * or running, in their current state — over real WebSockets to `wheelhouse serve`.
 */
const served = useServedAgentHomes();
const { client } = served;

async function setUp(): Promise<{ server: ServeProcess; project: string; alice: ProtocolPeer }> {
  const { home, project } = served.makeHome('wheelhouse-resume-');
  const server = await served.serve(home);
  return { server, project, alice: await client(server, 'alice') };
}

function commandsIn(items: readonly ConversationItem[]): CommandItem[] {
  return items.filter((item): item is CommandItem => item.type === 'commandExecution');
}

describe('opening a thread while its turn runs', () => {
  it('shows the command waiting for approval in the running turn, once, and it completes in place', async () => {
    const { server, project, alice } = await setUp();
    served.mock.enqueue(execCall('touch made.txt && echo approved-output'), textReply('Done.'));
    const { thread } = await alice.call('thread/start', { cwd: project });
    const { turn } = await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'make the file' }] });
    const request = await approvalRequest(alice);
    const itemId = (request.params as { itemId: string }).itemId;

    const bob = await client(server, 'bob');
    const resumed = await bob.call('thread/resume', { threadId: thread.id });
    const waiting = { id: itemId, type: 'commandExecution', status: 'inProgress', command: 'touch made.txt && echo approved-output', cwd: fs.realpathSync(project), turnId: turn.id };
    expect(commandsIn(resumed.items)).toEqual([expect.objectContaining(waiting)]);
    expect(resumed.items.map((item) => item.type)).toEqual(['userMessage', 'commandExecution']);
    expect(resumed.thread.turns.at(-1)).toMatchObject({ id: turn.id, status: 'inProgress' });

    const read = await bob.call('thread/read', { threadId: thread.id, includeTurns: true });
    const running = read.thread.turns.at(-1) as Turn;
    expect(running).toMatchObject({ id: turn.id, status: 'inProgress' });
    expect(running.items.map((item) => item.type)).toEqual(['userMessage', 'commandExecution']);
    expect(commandsIn(running.items)).toEqual([expect.objectContaining(waiting)]);
    expect(commandsIn(read.items)).toHaveLength(1);

    // Bob answers from the resumed view; the item completes under the same id, and the thread keeps it once.
    const toBob = (await bob.inbox.take((r) => r.kind === 'request' && r.message.id === request.id, 'the approval request replayed or sent to bob')).message as RequestMessage;
    bob.sendRaw(JSON.stringify({ id: toBob.id, result: { decision: 'accept' } }));
    const completed = await commandItem(bob, 'item/completed');
    expect(completed).toMatchObject({ id: itemId, status: 'completed', exitCode: 0 });
    expect((await turnEnd(alice)).status).toBe('completed');
    const after = await bob.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(commandsIn(after.items)).toEqual([expect.objectContaining({ id: itemId, status: 'completed' })]);
    expect(commandsIn(after.thread.turns.at(-1)!.items)).toHaveLength(1);
  });

  it('shows a running command with its output so far, and the reply text streamed before it', async () => {
    const { server, project, alice } = await setUp();
    // The command prints, then waits on a file the test creates: it runs as long as the test needs.
    const gate = path.join(project, 'gate');
    served.mock.enqueue(
      [
        { type: 'text' as const, text: 'Running it now.' },
        ...execCall(`echo first-part; while [ ! -e ${gate} ]; do sleep 0.1; done; echo second-part`, { yield_time_ms: 30_000 }),
      ],
      textReply('Done.'),
    );
    const { thread } = await alice.call('thread/start', { cwd: project });
    const { turn } = await alice.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'run it' }] });
    const started = await commandItem(alice, 'item/started');
    const request = await approvalRequest(alice);
    alice.sendRaw(JSON.stringify({ id: request.id, result: { decision: 'accept' } }));
    await alice.inbox.take(
      (r) => r.kind === 'notification' && r.message.method === 'item/commandExecution/outputDelta' && JSON.stringify(r.message.params).includes('first-part'),
      'the first output',
    );

    const bob = await client(server, 'bob');
    const resumed = await bob.call('thread/resume', { threadId: thread.id });
    const [command] = commandsIn(resumed.items);
    expect(command).toMatchObject({ id: started.id, status: 'inProgress', turnId: turn.id });
    expect(command!.aggregatedOutput).toContain('first-part');
    expect(command!.aggregatedOutput).not.toContain('second-part');
    expect(resumed.items.map((item) => item.type)).toEqual(['userMessage', 'agentMessage', 'commandExecution']);
    expect(resumed.items[1]).toMatchObject({ type: 'agentMessage', text: 'Running it now.' });

    fs.writeFileSync(gate, '');
    const completed = await commandItem(bob, 'item/completed');
    expect(completed).toMatchObject({ id: started.id, status: 'completed' });
    expect(completed.aggregatedOutput).toContain('second-part');
    expect((await turnEnd(alice)).status).toBe('completed');
  });
});
