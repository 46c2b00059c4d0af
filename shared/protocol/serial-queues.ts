/**
 * Queues by key: work under one key runs one at a time in the order it was
 * queued; work under different keys runs concurrently. A failure ends only its
 * own work. A key's queue is dropped once it is empty, so keys (thread ids)
 * never pile up.
 */
export class SerialQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => T | Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    // With nothing ahead of it, the work starts now (as an unqueued request would), not a tick later.
    const result = before ? before.then(() => work()) : (async () => work())();
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running (for tests and leak checks). */
  get size(): number {
    return this.tails.size;
  }
}
