import readline from 'node:readline';
import type { AppServerProcess } from './app-server-process.js';

/** A reply the client watched stream, by item id. */
export interface StreamedReply {
  readonly threadId: string;
  text: string;
  /** When the client saw the first delta (test clock). */
  readonly firstDeltaAtMs: number;
  completed: boolean;
  /** When its process was killed (test clock), once it was. */
  killedAtMs?: number;
}

/**
 * Everything a client saw across a series of app-server processes on one
 * home, from the raw stdout lines (including those still in the pipe when a
 * process was killed: the runtime sent them, so they count as acknowledged).
 * Records every violation of "a seq is never handed out twice and only grows
 * across restarts" as it happens.
 */
export class CrashObserver {
  /** seq -> notification method, over every process so far. */
  readonly seen = new Map<number, string>();
  /** item id -> thread id, for every item/completed a client received. */
  readonly acknowledged = new Map<string, string>();
  readonly streamed = new Map<string, StreamedReply>();
  readonly violations: string[] = [];
  private maxSeq = 0;

  /** Follows one process from its start; resolves when its stdout has closed. */
  follow(app: AppServerProcess, label: string): Promise<void> {
    const floor = this.maxSeq;
    let lastInLife = floor;
    const lines = readline.createInterface({ input: app.process.child.stdout!, crlfDelay: Infinity });
    lines.on('line', (line) => {
      let message: { method?: string; seq?: number; params?: Record<string, unknown> };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        this.violations.push(`${label}: stdout line is not JSON: ${line.slice(0, 200)}`);
        return;
      }
      if (message.method === undefined || typeof message.seq !== 'number') return;
      const { seq, method } = message;
      if (this.seen.has(seq)) this.violations.push(`${label}: seq ${seq} (${method}) was already handed out (${this.seen.get(seq)})`);
      if (seq <= lastInLife) this.violations.push(`${label}: seq ${seq} is not above ${lastInLife} (the newest seen before it)`);
      lastInLife = Math.max(lastInLife, seq);
      this.maxSeq = Math.max(this.maxSeq, seq);
      this.seen.set(seq, method);
      this.record(method, message.params ?? {});
    });
    return new Promise((resolve) => lines.once('close', () => resolve()));
  }

  /** Notes the moment the current process was killed. */
  killed(atMs: number): void {
    for (const reply of this.streamed.values()) reply.killedAtMs ??= atMs;
  }

  private record(method: string, params: Record<string, unknown>): void {
    const threadId = params.threadId as string;
    if (method === 'item/completed') {
      const item = params.item as { id: string; type: string };
      this.acknowledged.set(item.id, threadId);
      const reply = this.streamed.get(item.id);
      if (reply) reply.completed = true;
    } else if (method === 'item/agentMessage/delta') {
      const itemId = params.itemId as string;
      const reply = this.streamed.get(itemId);
      if (reply) reply.text += params.delta as string;
      else this.streamed.set(itemId, { threadId, text: params.delta as string, firstDeltaAtMs: Date.now(), completed: false });
    }
  }
}

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): { next(): number; int(min: number, max: number): number } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}
