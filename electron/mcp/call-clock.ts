/**
 * A tool call's `tool_timeout_sec`, counting only the time the server works:
 * while it waits for the person (an elicitation), the clock stands still, so
 * a form is never cut off by the call's own timeout. `signal` aborts when the
 * time is up.
 */
export class CallClock {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private remainingMs: number;
  private startedAt = 0;
  private paused = 0;

  constructor(
    timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.remainingMs = timeoutMs;
    this.run();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  /** Stops the clock until the matching `resume` (calls nest: two forms at once stop it once). */
  pause(): void {
    if (this.paused++ > 0 || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.remainingMs -= this.now() - this.startedAt;
  }

  resume(): void {
    if (this.paused === 0 || --this.paused > 0 || this.expired) return;
    this.run();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private run(): void {
    this.startedAt = this.now();
    this.timer = setTimeout(() => this.controller.abort(new Error('tool timeout')), Math.max(0, this.remainingMs));
  }
}
