/**
 * Remembers the answer to each `POST /v1/threads/{id}/turns` that carried an
 * idempotency key, so a retried request gets the first turn back instead of
 * starting a second. A retry that arrives while the first is still being
 * handled waits for it. Failed starts are forgotten, so they can be retried.
 * Kept in memory and bounded: keys protect against retries within a session.
 */
export class IdempotentTurns<T> {
  private readonly answers = new Map<string, Promise<T>>();

  constructor(private readonly capacity = 10_000) {}

  run(threadId: string, key: string, start: () => Promise<T>): Promise<T> {
    const id = `${threadId}\u0000${key}`;
    const known = this.answers.get(id);
    if (known) return known;
    const answer = start();
    this.answers.set(id, answer);
    answer.catch(() => this.answers.delete(id));
    if (this.answers.size > this.capacity) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    return answer;
  }
}
