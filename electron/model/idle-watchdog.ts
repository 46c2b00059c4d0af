/**
 * Fires once when nothing arrived for `timeoutMs`: the stream idle timeout.
 * Restarted on every event, paused while the consumer holds an event.
 */
export class IdleWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private firedFlag = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly onIdle: () => void,
  ) {
    this.touch();
  }

  /** True once the timeout elapsed. */
  get fired(): boolean {
    return this.firedFlag;
  }

  /** Something arrived (or waiting starts again): restart the clock. */
  touch(): void {
    this.stop();
    if (this.firedFlag || !(this.timeoutMs > 0)) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.firedFlag = true;
      this.onIdle();
    }, this.timeoutMs);
  }

  /** Stop the clock (the consumer is busy, or the stream is over). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
