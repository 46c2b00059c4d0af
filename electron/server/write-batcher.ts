/** A writable that can hold back writes and release them together (net.Socket, process.stdout). */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** How long notifications may wait to leave together. Short enough to be invisible in a UI. */
export const NOTIFICATION_BATCH_MS = 8;

/**
 * Batches notification writes into one socket write per few milliseconds, so
 * a token stream fanned out to many clients costs a few syscalls, not one
 * per token per client. Responses are urgent: they flush what is waiting (in
 * order) and go out at once, keeping request latency low.
 */
export class WriteBatcher {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly target: Corkable | undefined,
    private readonly delayMs = NOTIFICATION_BATCH_MS,
  ) {}

  /** Call before writing a message; `urgent` messages are not held back. */
  beforeWrite(urgent: boolean): void {
    if (!this.target) return;
    if (urgent) {
      this.flush();
      return;
    }
    if (this.timer) return;
    this.target.cork();
    this.timer = setTimeout(() => this.flush(), this.delayMs);
  }

  /** Releases whatever is waiting. */
  flush(): void {
    if (!this.timer || !this.target) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.target.uncork();
  }

  dispose(): void {
    this.flush();
  }
}
