import { createHash } from 'node:crypto';
import { HttpError } from './http-errors.js';

/**
 * Remembers the answer to each `POST /v1/threads/{id}/turns` that carried an
 * idempotency key, so a retried request gets the first turn back instead of
 * starting a second. A retry that arrives while the first is still being
 * handled waits for it. The key stands for one request: the same key with
 * another body is a client bug, refused with 422 rather than answered with a
 * turn the client did not ask for. Failed starts are forgotten, so they can
 * be retried. Kept in memory and bounded: keys protect against retries
 * within a session.
 */
export class IdempotentTurns<T> {
  private readonly answers = new Map<string, { readonly fingerprint: string; readonly answer: Promise<T> }>();

  constructor(private readonly capacity = 10_000) {}

  /** `body` is the request as parsed, without the key itself; `start` runs only for a key not seen yet. */
  run(threadId: string, key: string, body: unknown, start: () => Promise<T>): Promise<T> {
    const id = `${threadId}\u0000${key}`;
    const fingerprint = fingerprintOf(body);
    const known = this.answers.get(id);
    if (known) {
      if (known.fingerprint !== fingerprint) {
        return Promise.reject(
          new HttpError(
            422,
            'idempotency_key_reused',
            `Idempotency-Key ${JSON.stringify(key)} was already used for another turn request on this thread; send a new key for a new request`,
          ),
        );
      }
      return known.answer;
    }
    const answer = start();
    this.answers.set(id, { fingerprint, answer });
    answer.catch(() => {
      if (this.answers.get(id)?.answer === answer) this.answers.delete(id);
    });
    if (this.answers.size > this.capacity) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    return answer;
  }
}

/** A digest of the value's JSON with object keys sorted, so the same request reads the same whatever its key order. */
function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
