import { performance } from 'node:perf_hooks';
import { HeadTailBuffer } from './model-view.js';
import type { OutputLog } from './output-log.js';
import { TerminalProgressParser } from './terminal-progress.js';
import type { OutputStream, ProcessEvent, SubscribeOptions, Subscription } from './types.js';

export interface OutputLimits {
  /** A batch is delivered at the latest this long after its first byte arrived. */
  readonly maxDelayMs: number;
  /** ...or as soon as it holds this many bytes. */
  readonly maxBatchBytes: number;
  /** Output is paused when a flow-controlled subscriber lags by more than this. */
  readonly highWaterBytes: number;
  /** ...and resumed once every such subscriber lags by at most this. */
  readonly lowWaterBytes: number;
  /** Bytes streamed to subscribers (Infinity: no cap); the rest is counted and dropped. */
  readonly capBytes: number;
  /** Bytes kept in the log file, which ends with a marker when cut. */
  readonly logCapBytes: number;
  readonly modelHeadBytes: number;
  readonly modelTailBytes: number;
}

interface Subscriber {
  readonly listener: (event: ProcessEvent) => void;
  readonly flowControl: boolean;
  acked: number;
}

/**
 * Between a process's reads and its consumers: batches reads by time and
 * size (bytes after a quiet spell go at once, the rest at most every
 * `maxDelayMs` or `maxBatchBytes`), writes each batch to the log and then to every subscriber in order,
 * stops at the cap with a visible marker, parses terminal progress, keeps the
 * model's head + tail view, and asks the source to pause while a
 * flow-controlled subscriber lags too far behind.
 */
export class OutputPipeline {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingStream: OutputStream = 'pty';
  private timer: NodeJS.Timeout | null = null;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private delivered = 0;
  private received = 0;
  private capped = false;
  private sourcePaused = false;
  private lagHighMark = 0;
  private readonly subscribers = new Set<Subscriber>();
  private readonly progress = new TerminalProgressParser();
  private readonly modelView: HeadTailBuffer;

  constructor(
    private readonly limits: OutputLimits,
    private readonly log: OutputLog,
    private readonly setSourcePaused: (paused: boolean) => void,
  ) {
    this.modelView = new HeadTailBuffer(limits.modelHeadBytes, limits.modelTailBytes);
  }

  /** Bytes the process wrote, including any over the cap. */
  get receivedBytes(): number {
    return this.received;
  }

  /** Bytes delivered to subscribers and the log. */
  get deliveredBytes(): number {
    return this.delivered;
  }

  /** The most any flow-controlled subscriber has lagged behind, in bytes. */
  get maxUnackedBytes(): number {
    return this.lagHighMark;
  }

  get outputPaused(): boolean {
    return this.sourcePaused;
  }

  modelText(): string {
    return this.modelView.text();
  }

  push(stream: OutputStream, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.capped) {
      this.publishProgress(chunk);
      return;
    }
    const room = this.limits.capBytes - this.delivered - this.pendingBytes;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length > 0) {
      if (stream !== this.pendingStream && this.pendingBytes > 0) this.flush();
      this.pendingStream = stream;
      this.pending.push(kept);
      this.pendingBytes += kept.length;
    }
    if (kept.length < chunk.length) {
      this.flush();
      this.capped = true;
      this.log.note(`\n[wheelhouse: output truncated here — the ${this.limits.capBytes}-byte output cap was reached; the rest was neither shown nor kept]\n`);
      this.emit({ type: 'output-capped', capBytes: this.limits.capBytes });
      this.publishProgress(chunk.subarray(kept.length));
    } else if (this.pendingBytes >= this.limits.maxBatchBytes) {
      this.flush();
    } else if (this.timer === null && performance.now() - this.lastFlushAt >= this.limits.maxDelayMs) {
      // The first bytes after a quiet spell (a keystroke's echo, a prompt) go out at once;
      // what follows them within the window is batched.
      this.flush();
    } else {
      this.timer ??= setTimeout(() => this.flush(), this.limits.maxDelayMs);
    }
  }

  /** Delivers what is pending now (before a state change or the exit, which must follow it). */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pendingBytes === 0) return;
    this.lastFlushAt = performance.now();
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const offset = this.delivered;
    this.delivered += data.length;
    const logOffset = this.log.write(data);
    this.modelView.push(data);
    this.emit({ type: 'output', stream: this.pendingStream, offset, data, logOffset });
    this.publishProgress(data);
    this.checkPressure();
  }

  emit(event: ProcessEvent): void {
    for (const subscriber of this.subscribers) {
      try {
        subscriber.listener(event);
      } catch {
        // A consumer that throws is dropped, so it can neither break the others nor hold output paused.
        this.subscribers.delete(subscriber);
      }
    }
  }

  subscribe(listener: (event: ProcessEvent) => void, options: SubscribeOptions = {}): Subscription {
    const subscriber: Subscriber = { listener, flowControl: options.flowControl === true, acked: this.delivered };
    this.subscribers.add(subscriber);
    return {
      ack: (bytes) => {
        if (!(bytes > 0)) return;
        subscriber.acked = Math.min(this.delivered, subscriber.acked + bytes);
        this.checkPressure();
      },
      dispose: () => {
        this.subscribers.delete(subscriber);
        this.checkPressure();
      },
    };
  }

  /** Called once the process has exited and its output is drained. */
  close(): void {
    this.flush();
    this.log.close();
  }

  private publishProgress(data: Buffer): void {
    for (const progress of this.progress.push(data)) this.emit({ type: 'progress', progress });
  }

  private checkPressure(): void {
    let lag = 0;
    for (const subscriber of this.subscribers) {
      if (subscriber.flowControl) lag = Math.max(lag, this.delivered - subscriber.acked);
    }
    this.lagHighMark = Math.max(this.lagHighMark, lag);
    if (!this.sourcePaused && lag > this.limits.highWaterBytes) {
      this.sourcePaused = true;
      this.setSourcePaused(true);
    } else if (this.sourcePaused && lag <= this.limits.lowWaterBytes) {
      this.sourcePaused = false;
      this.setSourcePaused(false);
    }
  }
}
