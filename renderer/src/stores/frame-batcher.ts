/** How the batcher waits for the next frame; injectable so it runs under Node in tests. */
export interface FrameScheduler {
  requestFrame(callback: () => void): () => void;
  /** A fallback for windows that render no frames (hidden, minimised). */
  requestTimeout(callback: () => void, ms: number): () => void;
}

/** The browser's frames, with a timer fallback. */
export const browserScheduler: FrameScheduler = {
  requestFrame: (callback) => {
    const id = requestAnimationFrame(() => callback());
    return () => cancelAnimationFrame(id);
  },
  requestTimeout: (callback, ms) => {
    const id = setTimeout(callback, ms);
    return () => clearTimeout(id);
  },
};

/** A hidden window renders no frames; its queue is still drained this often. */
const HIDDEN_FLUSH_MS = 250;

/**
 * Collects values (notifications) and hands them to `flush` in one batch per
 * animation frame, so a token stream costs one store commit per frame, never
 * one per token. While held (a refetch is in flight) values wait in the queue
 * for whoever releases it.
 */
export class FrameBatcher<T> {
  private queue: T[] = [];
  private cancelFrame: (() => void) | null = null;
  private cancelTimeout: (() => void) | null = null;
  private held = false;

  constructor(
    private readonly flush: (batch: T[]) => void,
    private readonly scheduler: FrameScheduler = browserScheduler,
  ) {}

  push(value: T): void {
    this.queue.push(value);
    if (!this.held) this.schedule();
  }

  /** Stops flushing until `release`; values keep queueing. */
  hold(): void {
    this.held = true;
    this.cancel();
  }

  /** Resumes flushing and returns what queued meanwhile, for the caller to apply itself. */
  release(): T[] {
    this.held = false;
    return this.take();
  }

  /** Empties the queue without applying it (the conversation it was for is gone). */
  clear(): void {
    this.queue = [];
    this.cancel();
  }

  /** Applies the queue now (before an action that must see the latest state). */
  flushNow(): void {
    if (this.held) return;
    const batch = this.take();
    if (batch.length > 0) this.flush(batch);
  }

  private take(): T[] {
    this.cancel();
    const batch = this.queue;
    this.queue = [];
    return batch;
  }

  private schedule(): void {
    if (this.cancelFrame) return;
    const run = () => this.flushNow();
    this.cancelFrame = this.scheduler.requestFrame(run);
    this.cancelTimeout = this.scheduler.requestTimeout(run, HIDDEN_FLUSH_MS);
  }

  private cancel(): void {
    this.cancelFrame?.();
    this.cancelTimeout?.();
    this.cancelFrame = null;
    this.cancelTimeout = null;
  }
}
