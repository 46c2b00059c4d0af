import { describe, expect, it } from 'vitest';
import type { RuntimeEventEnvelope } from '../../shared/protocol/index.js';
import { seqText } from '../../test-support/exec.js';
import { execCall, textReply } from '../../test-support/agent-commands.js';
import { hostedRuntime, useMockAgentKit } from '../../test-support/mock-agent-kit.js';
import { waitUntil } from '../../test-support/waiting.js';
import { connectWs } from '../../test-support/ws-peer.js';
import { startWebServer } from './web-server.js';

/**
 * A client that drops in the middle of a command's flood and comes back:
 * what it saw live, then the replay from its last seq (merged with what
 * arrives live again, by seq), is every byte of the output exactly once, in
 * order, whatever size the supervisor's batches are. Real pty, real sockets.
 */
const LINES = 1_000_000; // ~7.9 MB through a pty
const DROP_AFTER_BYTES = 1024 * 1024;
const DELTA = 'item/commandExecution/outputDelta';

const kit = useMockAgentKit({ killChildren: true });

interface SeenDelta {
  readonly seq: number;
  readonly delta: string;
}

describe('command output across a reconnect', () => {
  it('a client dropped mid-flood gets every byte exactly once: live, then replayed from its last seq', async () => {
    const { runtime, host, project } = hostedRuntime(kit, 'wheelhouse-reconnect');
    const server = await startWebServer(host, {});
    kit.onCleanup(() => server.close());
    let turnCompleted = false;
    runtime.events.subscribe((notification) => {
      if (notification.method === 'turn/completed') turnCompleted = true;
    });

    const first = await connectWs(server.wsUrl);
    kit.onCleanup(() => first.socket.terminate());
    const seenBeforeDrop: SeenDelta[] = [];
    let bytesBeforeDrop = 0;
    first.socket.on('message', (data) => {
      const text = String(data);
      if (!text.startsWith(`{"method":"${DELTA}"`) || first.socket.readyState !== first.socket.OPEN) return;
      const message = JSON.parse(text) as { seq: number; params: { delta: string } };
      seenBeforeDrop.push({ seq: message.seq, delta: message.params.delta });
      bytesBeforeDrop += message.params.delta.length;
      // Gone mid-flood, as a laptop lid closing: no goodbye, and whatever was in flight is lost.
      if (bytesBeforeDrop >= DROP_AFTER_BYTES) first.socket.terminate();
    });
    await first.peer.initialize('first');
    kit.mock.enqueue(execCall(`seq 1 ${LINES}`), textReply('Counted.'));
    const { thread } = await first.peer.call('thread/start', { cwd: project, approvalPolicy: 'never' });
    await first.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'count' }] });
    await first.closed;
    const lastSeen = seenBeforeDrop.at(-1)!.seq;

    // Back again: live deltas and the replay from the last seq it saw, merged by seq.
    const again = await connectWs(server.wsUrl);
    kit.onCleanup(() => again.socket.terminate());
    const liveAgain = new Map<number, string>();
    again.socket.on('message', (data) => {
      const text = String(data);
      if (!text.startsWith(`{"method":"${DELTA}"`)) return;
      const message = JSON.parse(text) as { seq: number; params: { delta: string } };
      liveAgain.set(message.seq, message.params.delta);
    });
    await again.peer.initialize('again');
    await waitUntil(() => turnCompleted, { what: 'the turn with the flood to complete' });
    const replayed: SeenDelta[] = [];
    for (let after = lastSeen; ; ) {
      const page = await again.peer.call('events/replay', { afterSeq: after, limit: 500 });
      expect(page.reset).toBe(false);
      const events: RuntimeEventEnvelope[] = page.events;
      for (const event of events) {
        if (event.event === DELTA) replayed.push({ seq: event.seq, delta: (event.payload as { delta: string }).delta });
      }
      if (events.length < 500) break;
      after = events.at(-1)!.seq;
    }

    // Each delta it got live a second time is the one the log replays under the same seq.
    const replayedBySeq = new Map(replayed.map((d) => [d.seq, d.delta]));
    const liveMismatches = [...liveAgain].filter(([seq, delta]) => replayedBySeq.get(seq) !== delta).map(([seq]) => seq);
    expect(liveMismatches).toEqual([]);
    // Seen once: no seq before the drop comes back in the replay, none is skipped after it.
    expect(replayed.every((d) => d.seq > lastSeen)).toBe(true);
    const whole = [...seenBeforeDrop, ...replayed].map((d) => d.delta).join('');
    const expected = seqText(LINES, true);
    expect(whole.length).toBe(expected.length);
    expect(whole === expected).toBe(true);
    // The drop really was mid-flood: most of the output came after it.
    expect(bytesBeforeDrop).toBeLessThan(expected.length / 2);
  }, 180_000);
});
