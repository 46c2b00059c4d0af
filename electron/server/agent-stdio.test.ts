import { describe, expect, it } from 'vitest';
import type { Turn } from '../../shared/protocol/index.js';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';

/**
 * `wheelhouse app-server` as a real process, configured only by a
 * config.toml that points at the local mock provider.
 */
const stdio = useStdioAgentHomes();

const text = (t: string) => [{ type: 'text' as const, text: t }];

/** An app-server whose turn has begun streaming a reply that never ends on its own. */
async function startStreamingTurn() {
  const { home } = stdio.makeHome('wheelhouse-agent-');
  stdio.mock.enqueue([{ type: 'text', text: 'Working' }, { type: 'stall' }]);
  const first = stdio.start(home);
  await first.peer.initialize();
  const { thread } = await first.peer.call('thread/start', { cwd: home });
  await first.peer.call('turn/start', { threadId: thread.id, input: text('long job') });
  await first.peer.inbox.notification('item/agentMessage/delta');
  return { home, first, thread };
}

describe('agent over stdio', () => {
  it('runs a turn to turn/completed, then continues the thread after the process restarts', async () => {
    const { home } = stdio.makeHome('wheelhouse-agent-');
    stdio.mock.enqueue(
      [{ type: 'text', text: 'Hello from the mock.' }, { type: 'finish', usage: { inputTokens: 20, outputTokens: 5 } }],
      [{ type: 'text', text: 'Still here.' }, { type: 'finish' }],
    );
    const before = stdio.mock.requests.length;

    const first = stdio.start(home);
    await first.peer.initialize();
    const { thread } = await first.peer.call('thread/start', { cwd: home });
    expect(thread.modelProvider).toBe('mock');
    await first.peer.call('turn/start', { threadId: thread.id, input: text('hi') });
    const delta = await first.peer.inbox.notification('item/agentMessage/delta');
    expect(typeof (delta.params as { delta: string }).delta).toBe('string');
    const completed = await first.peer.inbox.notification('turn/completed');
    const turn = (completed.params as { turn: Turn }).turn;
    expect(turn.status).toBe('completed');
    expect(turn.usage?.inputTokens).toBe(20);
    first.endInput();
    expect((await first.exited).code).toBe(0);

    const second = stdio.start(home);
    await second.peer.initialize();
    const resumed = await second.peer.call('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns).toHaveLength(1);
    expect(resumed.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
    await second.peer.call('turn/start', { threadId: thread.id, input: text('are you there?') });
    await second.peer.inbox.notification('turn/completed');
    const body = JSON.stringify(stdio.mock.requests[before + 1]!.body);
    expect(body).toContain('Hello from the mock.');
    expect(body).toContain('are you there?');
    // A reconnecting client can replay everything it missed.
    const replay = await second.peer.call('events/replay', { afterSeq: 0, threadId: thread.id });
    expect(replay.events.some((e) => e.event === 'turn/completed')).toBe(true);
    second.endInput();
    await second.exited;
  });

  it('a turn killed with the process is shown as interrupted after restart, never as running', async () => {
    const { home, first, thread } = await startStreamingTurn();
    first.process.child.kill('SIGKILL');
    await first.exited;

    const second = stdio.start(home);
    await second.peer.initialize();
    const read = await second.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.turns[0]).toMatchObject({ status: 'interrupted' });
    expect(read.thread.turns[0]!.error?.message).toMatch(/stopped while this turn was running/);
    expect(read.thread.lifecycle).toBe('idle');
    second.endInput();
    await second.exited;
  });

  it('SIGTERM during a running turn exits cleanly and saves the turn as interrupted', async () => {
    const { home, first, thread } = await startStreamingTurn();
    first.process.child.kill('SIGTERM');
    const completed = await first.peer.inbox.notification('turn/completed');
    expect((completed.params as { turn: Turn }).turn.status).toBe('interrupted');
    expect((await first.exited).code).toBe(0);

    const second = stdio.start(home);
    await second.peer.initialize();
    const read = await second.peer.call('thread/read', { threadId: thread.id });
    expect(read.items.find((i) => i.type === 'agentMessage')).toMatchObject({ text: 'Working' });
    second.endInput();
    await second.exited;
  });
});
