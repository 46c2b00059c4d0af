/**
 * The event log's group commit: what "durable before announced" costs.
 * Every variant runs in this process on its own SQLite file (WAL, as the
 * app opens it) with one listener standing for the carriers; a carrier's own
 * cost comes on top and is measured elsewhere (eventFanout, sseFanout).
 *
 * - throughput: token deltas published in bursts (one burst per turn of the
 *   event loop, as chunks of a model stream arrive), until every one has been
 *   announced and written;
 * - latency: deltas paced at a steady rate; publish -> listener (what a
 *   client waits) and publish -> on disk (what a crash could lose).
 *
 * The baseline is the log before this change (broadcast at once, written in
 * a 25 ms batch), rebuilt here over the same store; it lives only in this bench.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AnyNotification, NotificationMethod, NotificationParamsOf } from '../shared/protocol/index.js';
import { EventLog, type EventScope } from '../electron/runtime/event-log.js';
import type { PendingEvent } from '../electron/store/event-store.js';
import { StateStore } from '../electron/store/state-store.js';
import { quantile, summarize, type LatencySummary } from './stats.js';

type Listener = (notification: AnyNotification) => void;

/** What the bench drives: the product's EventLog, or the baseline. */
interface LogUnderTest {
  publish<N extends NotificationMethod>(method: N, params: NotificationParamsOf<N>, scope?: EventScope): number;
  subscribe(listener: Listener): () => void;
  close(): void;
  readonly lastSeq: number;
}

/** The event log as it was before durable-before-announce: listeners first, the log 25 ms later. */
class BroadcastFirstLog implements LogUnderTest {
  private seq: number;
  private reservedThrough: number;
  private readonly listeners = new Set<Listener>();
  private queue: PendingEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly store: StateStore) {
    this.seq = store.events.reservedThrough();
    this.reservedThrough = this.seq;
  }

  get lastSeq(): number {
    return this.seq;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish<N extends NotificationMethod>(method: N, params: NotificationParamsOf<N>, scope: EventScope = {}): number {
    const seq = ++this.seq;
    if (seq > this.reservedThrough) {
      this.reservedThrough = seq + 999;
      this.store.events.reserveThrough(this.reservedThrough);
    }
    const payloadJson = JSON.stringify(params ?? null);
    this.queue.push({ seq, event: method, kind: 'item', threadId: scope.threadId ?? null, turnId: scope.turnId ?? null, itemId: scope.itemId ?? null, createdAtMs: Date.now(), payloadJson });
    if (this.queue.length >= 500) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 25);
    const notification = { method, params, seq } as AnyNotification;
    // The text every carrier writes, built as the log builds it.
    void `{"method":${JSON.stringify(method)},"params":${payloadJson},"seq":${seq}}`;
    for (const listener of this.listeners) listener(notification);
    return seq;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.store.events.appendBatch(this.queue);
    this.queue = [];
  }

  close(): void {
    this.flush();
  }
}

interface Variant {
  readonly name: string;
  /** A fresh log over a fresh store in `dir`. */
  open(dir: string): { log: LogUnderTest; store: StateStore; memory: StateStore };
}

function openStores(dir: string, synchronous?: 'FULL') {
  const store = StateStore.open(path.join(dir, 'state.sqlite'));
  if (synchronous) store.db.pragma(`synchronous = ${synchronous}`);
  return { store, memory: StateStore.inMemory() };
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'broadcastFirst25msBatch (before)',
    open: (dir) => {
      const { store, memory } = openStores(dir);
      return { log: new BroadcastFirstLog(store), store, memory };
    },
  },
  {
    name: 'durableBeforeAnnounce (end of event-loop turn; shipped)',
    open: (dir) => {
      const { store, memory } = openStores(dir);
      return { log: new EventLog(store, memory), store, memory };
    },
  },
  {
    name: 'durableBeforeAnnounce 5ms window',
    open: (dir) => {
      const { store, memory } = openStores(dir);
      return { log: new EventLog(store, memory, { flushDelayMs: 5 }), store, memory };
    },
  },
  {
    name: 'durableBeforeAnnounce synchronous=FULL (also power-cut safe)',
    open: (dir) => {
      const { store, memory } = openStores(dir, 'FULL');
      return { log: new EventLog(store, memory), store, memory };
    },
  },
];

const delta = (i: number) => ({ threadId: 'bench-thread', turnId: 'bench-turn', itemId: 'bench-item', delta: `token${i} ` });
const SCOPE: EventScope = { threadId: 'bench-thread', turnId: 'bench-turn', itemId: 'bench-item' };
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const round = (n: number) => Math.round(n);

/** Records when each batch reaches the file: the moment an event is safe from a crash. */
function watchWrites(store: StateStore, publishedAt: Map<number, number>, samples: number[]): void {
  const append = store.events.appendBatch.bind(store.events);
  store.events.appendBatch = (events) => {
    append(events);
    const at = performance.now();
    for (const event of events) {
      const t0 = publishedAt.get(event.seq);
      if (t0 !== undefined) samples.push(at - t0);
    }
  };
}

/** Wall-clock rate and CPU per event (CPU is steadier than wall time on a busy machine). */
async function throughput(variant: Variant, dir: string, total: number, burst: number): Promise<{ perSecond: number; cpuMicros: number }> {
  const { log, store, memory } = variant.open(dir);
  let delivered = 0;
  let allDelivered!: () => void;
  const done = new Promise<void>((resolve) => (allDelivered = resolve));
  log.subscribe(() => {
    if (++delivered === total) allDelivered();
  });
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < total; ) {
    for (let n = 0; n < burst && i < total; n++, i++) log.publish('item/agentMessage/delta', delta(i), SCOPE);
    await nextTurn();
  }
  await done;
  // Written too: the baseline's last batch is still waiting for its timer.
  log.close();
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - start) / 1000;
  store.close();
  memory.close();
  return { perSecond: round(total / seconds), cpuMicros: Math.round(((used.user + used.system) / total) * 100) / 100 };
}

/** One run's publish -> listener and publish -> on-disk latencies. */
async function latency(variant: Variant, dir: string, perSecond: number, durationMs: number): Promise<{ toClient: LatencySummary; toDisk: LatencySummary }> {
  const { log, store, memory } = variant.open(dir);
  const publishedAt = new Map<number, number>();
  const toClient: number[] = [];
  const toDisk: number[] = [];
  watchWrites(store, publishedAt, toDisk);
  log.subscribe((notification) => {
    const t0 = publishedAt.get(notification.seq!);
    if (t0 !== undefined) toClient.push(performance.now() - t0);
  });
  const total = Math.round((perSecond * durationMs) / 1000);
  const start = performance.now();
  for (let i = 0; i < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * perSecond) / 1000) + 1);
    for (; i < due; i++) {
      // Noted before the call: the baseline hands the event to its listeners inside publish.
      publishedAt.set(log.lastSeq + 1, performance.now());
      log.publish('item/agentMessage/delta', delta(i), SCOPE);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // Let the last batch go out on its own schedule before closing.
  await new Promise((resolve) => setTimeout(resolve, 50));
  log.close();
  store.close();
  memory.close();
  return { toClient: summarize(toClient), toDisk: summarize(toDisk) };
}

const median = (values: readonly number[]) => quantile([...values].sort((a, b) => a - b), 0.5);

/** Per-round figures folded into one: medians over the rounds, and the worst round's p99. */
function acrossRounds(runs: readonly LatencySummary[]) {
  return {
    medianMs: median(runs.map((run) => run.medianMs)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    worstRoundP99Ms: Math.max(...runs.map((run) => run.p99Ms)),
  };
}

export interface EventLogCommitReport {
  readonly workload: string;
  readonly rounds: number;
  readonly variants: ReadonlyArray<{
    readonly name: string;
    /** Medians over the rounds. */
    readonly eventsPerSecond: number;
    readonly cpuMicrosPerEvent: number;
    readonly publishToClient: ReturnType<typeof acrossRounds>;
    readonly publishToDisk: ReturnType<typeof acrossRounds>;
  }>;
}

/**
 * Runs every variant on the same workloads, in one process; rounds take the
 * variants in turn, so a burst of load on the machine falls on all of them.
 */
export async function eventLogGroupCommit(options: {
  dir: () => string;
  rounds?: number;
  total?: number;
  burst?: number;
  perSecond?: number;
  durationMs?: number;
}): Promise<EventLogCommitReport> {
  const rounds = options.rounds ?? 5;
  const total = options.total ?? 30_000;
  const burst = options.burst ?? 25;
  const perSecond = options.perSecond ?? 2000;
  const durationMs = options.durationMs ?? 2000;
  const results = VARIANTS.map(() => ({
    rates: [] as number[],
    cpu: [] as number[],
    toClient: [] as LatencySummary[],
    toDisk: [] as LatencySummary[],
  }));
  for (let round = 0; round < rounds; round++) {
    for (const [index, variant] of VARIANTS.entries()) {
      const result = results[index]!;
      const { perSecond: rate, cpuMicros } = await throughput(variant, options.dir(), total, burst);
      result.rates.push(rate);
      result.cpu.push(cpuMicros);
      const { toClient, toDisk } = await latency(variant, options.dir(), perSecond, durationMs);
      result.toClient.push(toClient);
      result.toDisk.push(toDisk);
    }
  }
  return {
    workload: `throughput: ${total} deltas, ${burst} per event-loop turn; latency: ${perSecond} deltas/s for ${durationMs} ms`,
    rounds,
    variants: VARIANTS.map((variant, index) => {
      const result = results[index]!;
      return {
        name: variant.name,
        eventsPerSecond: median(result.rates),
        cpuMicrosPerEvent: median(result.cpu),
        publishToClient: acrossRounds(result.toClient),
        publishToDisk: acrossRounds(result.toDisk),
      };
    }),
  };
}
