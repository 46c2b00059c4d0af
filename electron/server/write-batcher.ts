/** A writable that can hold back writes and release them together (net.Socket, process.stdout). */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** How long notifications may wait to leave together. Short enough to be invisible in a UI. */
export const NOTIFICATION_BATCH_MS = 8;

/** Longer messages go to a carrier as their UTF-8 bytes (`heldAsBytes`). */
const HOLD_AS_BYTES_ABOVE = 8 * 1024;

/**
 * A message as a carrier should hold it. What a carrier cannot write at once (it is corked, below,
 * or its client is behind) waits in its stream's buffer, and a string waiting there lives on V8's
 * heap: every young-generation collection it survives copies it, and an agent's output deltas are
 * 64–90 KB each. Bytes wait outside the heap. Over WebSocket during a 26 MB flood (8 rounds) this
 * took the server's collections from 93–111 to 57–77 ms and its CPU from 840 to 760 ms (medians),
 * and the flood from 15.9 to 17.2 MB/s (docs/performance.md, "Output held as bytes").
 */
export function heldAsBytes(text: string | Buffer): string | Buffer {
  return typeof text === 'string' && text.length > HOLD_AS_BYTES_ABOVE ? Buffer.from(text, 'utf8') : text;
}

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
