import type { EventEmitter } from 'node:events';

/**
 * Waiting in tests: a wait resolves the moment what it waits for holds, and
 * has no clock of its own. Vitest's test (or hook) timeout ends a wait that
 * never resolves; the leak check (test-support/leak-check-setup.ts) then
 * fails the test naming every wait still pending, and cancels them, so a
 * loaded machine only makes tests slower, never wrong.
 */

/** The timer functions as they were when this module loaded: a test's fake timers do not stop a wait. */
const schedule = globalThis.setTimeout;
const unschedule = globalThis.clearTimeout;

/** What a check returns while the condition does not hold yet. */
type NotYet = undefined | null | false;

/** How `waitUntil` learns that it is worth checking again. */
export interface WaitOptions {
  /** What the test waits for, in words; named when the wait fails or is left pending. */
  readonly what: string;
  /**
   * Subscribes `wake` to whatever changes the checked state (returns the
   * unsubscribe). Given, the check runs on each wake only; without it the
   * check is polled every `intervalMs`.
   */
  readonly wakeOn?: (wake: () => void) => () => void;
  /** Polling interval when there is no `wakeOn`. */
  readonly intervalMs?: number;
  /**
   * A limit of the wait's own, for code that runs outside a test (benchmarks)
   * or a test that asserts a deadline it sets itself; tests normally leave
   * it out and let vitest's timeout bound a hang.
   */
  readonly timeoutMs?: number;
}

interface PendingWait {
  readonly what: string;
  cancel(reason: string): void;
}

const pending = new Set<PendingWait>();

/**
 * Registers a wait so the leak check can name and cancel it if its test
 * ends first; `cancel` must settle the wait. Returns the unregister function.
 */
export function trackWait(what: string, cancel: (reason: string) => void): () => void {
  const entry: PendingWait = { what, cancel };
  pending.add(entry);
  return () => pending.delete(entry);
}

/** Cancels every wait still pending (their promises reject with `reason`) and says what they waited for. */
export function cancelPendingWaits(reason: string): string[] {
  const left = [...pending];
  pending.clear();
  for (const wait of left) wait.cancel(reason);
  return left.map((wait) => wait.what);
}

/**
 * Resolves with the first value of `check` that is not undefined, null or
 * false; `check` may be async (a request to the runtime). Checks never
 * overlap. A check that throws fails the wait.
 */
export function waitUntil<T>(check: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions): Promise<T> {
  const { what, wakeOn, intervalMs = 20, timeoutMs } = options;
  let settled = false;
  let checking = false;
  let again = false;
  let poll: ReturnType<typeof setTimeout> | undefined;
  let limit: ReturnType<typeof setTimeout> | undefined;
  let unsubscribe: (() => void) | undefined;
  let untrack: (() => void) | undefined;

  const promise = new Promise<T>((resolve, reject) => {
    const finish = (outcome: { value: T } | { error: Error }) => {
      if (settled) return;
      settled = true;
      unschedule(poll);
      unschedule(limit);
      unsubscribe?.();
      untrack?.();
      if ('value' in outcome) resolve(outcome.value);
      else reject(outcome.error);
    };
    const run = async (): Promise<void> => {
      if (settled) return;
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      try {
        do {
          again = false;
          const value = await check();
          if (value !== undefined && value !== null && value !== false) return finish({ value });
        } while (again && !settled);
      } catch (error) {
        return finish({ error: error instanceof Error ? error : new Error(String(error)) });
      } finally {
        checking = false;
      }
      if (!settled && !wakeOn) poll = schedule(() => void run(), intervalMs);
    };
    untrack = trackWait(what, (reason) => finish({ error: new Error(`${reason} while waiting for ${what}`) }));
    if (timeoutMs !== undefined) {
      limit = schedule(() => finish({ error: new Error(`waited ${timeoutMs} ms for ${what}`) }), timeoutMs);
    }
    if (wakeOn) unsubscribe = wakeOn(() => void run());
    void run();
  });
  // A wait cancelled after its test gave up on it must not surface as an unhandled rejection;
  // a caller that awaits it still gets the error.
  promise.catch(() => undefined);
  return promise;
}

/** A `wakeOn` for Node event emitters: wakes on any of `events`. */
export function onEvents(emitter: EventEmitter, ...events: string[]): (wake: () => void) => () => void {
  return (wake) => {
    for (const event of events) emitter.on(event, wake);
    return () => {
      for (const event of events) emitter.off(event, wake);
    };
  };
}
