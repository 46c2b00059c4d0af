import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeEventEnvelope, Turn } from '../../shared/protocol/index.js';
import { mockModelConfig, textReply } from '../../test-support/agent-commands.js';
import { startAppServer } from '../../test-support/app-server-process.js';
import { killAllChildren, type TrackedChild } from '../../test-support/child-process.js';
import { startMockModelServer, type MockModelServer } from '../../test-support/mock-model/index.js';
import type { ProtocolPeer } from '../../test-support/protocol-peer.js';
import { startServe } from '../../test-support/serve-process.js';
import { SseSubscriber } from '../../test-support/sse-client.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { connectWs } from '../../test-support/ws-peer.js';

/**
 * "Durable before announced", against real processes: the client kills the
 * server (SIGKILL) the moment it reads `turn/completed`, and the restarted
 * server's replay must hold that event under the same seq. Repeated, because
 * the race it guards against (broadcast first, log write 25 ms later) was lost
 * in most runs but not all.
 */
const ROUNDS = 8;

/** A fresh mock per process: a request the killed process had sent must not take the next one's script. */
let mock: MockModelServer | undefined;
const temp = new TempDirs();
afterEach(async () => {
  await killAllChildren();
  await mock?.close();
  mock = undefined;
  temp.cleanup();
});

const text = (t: string) => [{ type: 'text' as const, text: t }];

async function freshMock(home: string): Promise<void> {
  await mock?.close();
  mock = await startMockModelServer();
  fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
}

/** What the client had read when it pulled the trigger. */
interface SeenCompletion {
  readonly seq: number;
  readonly threadId: string;
  readonly turnId: string;
}

/** Kills `child` with SIGKILL from inside the handler of the first message that is a `turn/completed` notification. */
function killOnTurnCompleted(child: TrackedChild['child'], onMessage: (listener: (text: string) => void) => void): Promise<SeenCompletion> {
  return new Promise((resolve) => {
    let fired = false;
    onMessage((line) => {
      if (fired || !line.includes('"turn/completed"')) return;
      const message = JSON.parse(line) as { method?: string; seq?: number; params?: { threadId: string; turn: Turn } };
      if (message.method !== 'turn/completed' || message.seq === undefined || !message.params) return;
      fired = true;
      child.kill('SIGKILL');
      resolve({ seq: message.seq, threadId: message.params.threadId, turnId: message.params.turn.id });
    });
  });
}

/** The completion the client saw, as the restarted server's `events/replay` holds it. */
async function expectReplayHolds(peer: ProtocolPeer, seen: SeenCompletion, round: number): Promise<void> {
  const replay = await peer.call('events/replay', { afterSeq: seen.seq - 1, limit: 10, threadId: seen.threadId });
  const first: RuntimeEventEnvelope | undefined = replay.events[0];
  expect(first?.seq, `round ${round}: replay after ${seen.seq - 1} starts with the seq the client saw`).toBe(seen.seq);
  expect(first?.event).toBe('turn/completed');
  expect((first?.payload as { turn: Turn }).turn.id).toBe(seen.turnId);
  expect(replay.reset).toBe(false);
  const read = await peer.call('thread/read', { threadId: seen.threadId, includeTurns: true });
  expect(read.thread.turns.find((turn) => turn.id === seen.turnId)?.status).toBe('completed');
}

describe('an event a client saw survives kill -9 (durable before announced)', () => {
  it('over stdio: killed in the client\'s turn/completed handler, the replay after restart holds it, round after round', async () => {
    const home = temp.make('wheelhouse-announce-stdio-');
    const project = temp.make('wheelhouse-project-');
    let threadId: string | null = null;
    for (let round = 1; round <= ROUNDS; round++) {
      await freshMock(home);
      const app = startAppServer(home);
      const lines = readline.createInterface({ input: app.process.child.stdout!, crlfDelay: Infinity });
      const seen = killOnTurnCompleted(app.process.child, (listener) => lines.on('line', listener));
      await app.peer.initialize();
      if (threadId === null) threadId = (await app.peer.call('thread/start', { cwd: project })).thread.id;
      else await app.peer.call('thread/resume', { threadId });
      mock!.enqueue(textReply(`Reply ${round}.`));
      await app.peer.call('turn/start', { threadId, input: text(`turn ${round}`) });
      const completion = await seen;
      expect((await app.exited).signal, app.process.stderr()).toBe('SIGKILL');

      const next = startAppServer(home);
      await next.peer.initialize();
      await expectReplayHolds(next.peer, completion, round);
      next.endInput();
      expect((await next.exited).code, next.process.stderr()).toBe(0);
    }
  }, 180_000);

  it('over serve: killed in the WebSocket client\'s turn/completed handler, events/replay and SSE with Last-Event-ID hold it, round after round', async () => {
    const home = temp.make('wheelhouse-announce-serve-');
    const project = temp.make('wheelhouse-project-');
    let threadId: string | null = null;
    for (let round = 1; round <= ROUNDS; round++) {
      await freshMock(home);
      const server = await startServe({ home });
      const { peer, socket } = await connectWs(server.wsUrl);
      const seen = killOnTurnCompleted(server.process.child, (listener) =>
        socket.on('message', (data: WebSocket.RawData) => listener(String(data))),
      );
      await peer.initialize('announce-test');
      if (threadId === null) threadId = (await peer.call('thread/start', { cwd: project })).thread.id;
      else await peer.call('thread/resume', { threadId });
      mock!.enqueue(textReply(`Reply ${round}.`));
      await peer.call('turn/start', { threadId, input: text(`turn ${round}`) });
      const completion = await seen;
      expect((await server.process.exited).signal, server.process.stderr()).toBe('SIGKILL');
      socket.terminate();

      const next = await startServe({ home });
      const client = await connectWs(next.wsUrl);
      await client.peer.initialize('announce-test');
      await expectReplayHolds(client.peer, completion, round);
      // An EventSource reconnecting with the id of the event before gets the completion first.
      const sse = await SseSubscriber.open(`http://127.0.0.1:${next.port}/v1/threads/${threadId}/events?token=${encodeURIComponent(next.token)}`, {
        headers: { 'last-event-id': String(completion.seq - 1) },
      });
      const first = await sse.waitFor((event) => event.id !== undefined);
      sse.close();
      expect(first.id, `round ${round}: SSE resumes with the seq the client saw`).toBe(completion.seq);
      expect(first.event).toBe('turn/completed');
      client.socket.close();
      expect((await next.stop()).code, next.process.stderr()).toBe(0);
    }
  }, 240_000);
});
