import type { DetachedAttachment, DetachedRunEvent, DetachedRunState } from '../detached/detached-run.js';
import { LogDelivery } from '../detached/log-delivery.js';
import type { LogStreamFollow, RemoteLogStream } from './remote-log-stream.js';

/** What one look at a remote run returns: its state (seen before its log was read) and the log from an offset. */
export interface RemoteLook {
  readonly state: DetachedRunState;
  readonly data: Buffer;
  /** The read stopped at its size limit: more is there already. */
  readonly more: boolean;
}

export interface RemoteFollowerOptions {
  /** This machine's copy of the run's log; bytes are written at their offsets. */
  readonly mirrorPath: string;
  readonly fromOffset: number;
  /** One look over the connection; throws while the host cannot be reached (the follower keeps trying). */
  readonly look: (offset: number) => Promise<RemoteLook>;
  /** The connection's log stream, and the run's log and end marker there; null to follow by looks alone. */
  readonly stream: { readonly channel: RemoteLogStream; readonly logPath: string; readonly endMarker: string | null } | null;
  /** How often a running run is looked at when its log cannot be streamed. */
  readonly pollMs: number;
  /** How often it is looked at while streamed (for a state without an end marker: lost, cancelled by Slurm, a task's change). */
  readonly statePollMs: number;
  readonly listener: (event: DetachedRunEvent) => void;
  /** Each state learned (the environment keeps the last one for `state` and `isAlive`). */
  readonly onState: (state: DetachedRunState) => void;
}

/**
 * Follows a run that lives on another machine. Its bytes come pushed by the
 * connection's log stream as they are written, and by looks (state first,
 * then the log from where it got to): every `statePollMs` while streamed, at
 * once when the stream sees the end marker, every `pollMs` when the far side
 * cannot stream or the connection is down. Both hand bytes at their offsets
 * to one LogDelivery (as local runs do), so an overlap is delivered once and
 * a drop changes nothing: the next look or stream goes on from the same
 * offset, every byte once however often the connection comes and goes.
 */
export class RemoteFollower implements DetachedAttachment {
  private readonly delivery: LogDelivery;
  private looking = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private streamed: LogStreamFollow | null = null;
  /** The end marker appeared: the run ends within moments (Slurm may say COMPLETING a little longer), so look often. */
  private endSeen = false;

  constructor(private readonly options: RemoteFollowerOptions) {
    this.delivery = new LogDelivery({ fromOffset: options.fromOffset, listener: options.listener, mirrorPath: options.mirrorPath });
    this.follow();
    setImmediate(() => void this.look());
  }

  get offset(): number {
    return this.delivery.offset;
  }

  poll(): void {
    void this.look();
  }

  dispose(): void {
    this.delivery.close();
    this.stop();
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.streamed?.dispose();
    this.streamed = null;
  }

  /** Streams from what was received, if the far side can. */
  private follow(): void {
    const stream = this.options.stream;
    if (!stream || this.streamed || this.delivery.done) return;
    this.streamed = stream.channel.follow(stream.logPath, stream.endMarker, this.delivery.received, {
      data: (offset, data) => {
        // A gap (what was held back was read again by a look meanwhile, or a restart raced): from what was received.
        if (!this.delivery.accept(offset, data)) this.streamed?.restart(this.delivery.received);
      },
      ended: () => {
        this.endSeen = true;
        void this.look();
      },
      lost: () => {
        this.streamed = null;
        // Looks find out whether the connection is back; the first that succeeds follows again.
        this.schedule(this.options.pollMs);
      },
    });
  }

  private schedule(ms: number): void {
    if (this.delivery.done) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.look(), ms);
    this.timer.unref();
  }

  private async look(): Promise<void> {
    if (this.delivery.done) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.looking = true;
    let next = this.streamed && !this.endSeen ? this.options.statePollMs : this.options.pollMs;
    try {
      const from = this.delivery.received;
      const look = await this.options.look(from);
      if (this.delivery.done) return;
      this.options.onState(look.state);
      this.delivery.state(look.state);
      const ended = look.state.state !== 'running' && !look.more;
      this.delivery.accept(from, look.data, ended);
      if (look.more) next = 0;
      else if (ended) {
        this.stop();
        this.delivery.end(look.state as Exclude<DetachedRunState, { state: 'running' }>);
        return;
      }
      // The connection answers: stream again if the stream was lost.
      this.follow();
      if (this.streamed && !this.endSeen && !look.more) next = this.options.statePollMs;
    } catch {
      // Unreachable for now: the connection reconnects with backoff; the next look goes on from here.
      next = Math.max(this.options.pollMs, 1000);
    } finally {
      this.looking = false;
    }
    if (this.again) {
      this.again = false;
      next = 0;
    }
    this.schedule(next);
  }
}
