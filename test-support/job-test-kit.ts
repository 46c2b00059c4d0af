import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnyNotification, ClientMethod, Job, ParamsOf, ResultOf } from '../shared/protocol/index.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/runtime/runtime.js';
import { createTestRuntime, type TestRuntimeOptions } from './test-runtime.js';

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** A runtime on a temp home with every notification it sends kept, for job tests. */
export class JobTestKit {
  readonly runtime: Runtime;
  readonly notifications: AnyNotification[] = [];
  private waiters = new Set<() => void>();

  constructor(
    readonly home: string,
    options: Partial<TestRuntimeOptions> = {},
  ) {
    this.runtime = createTestRuntime({ home, validateResults: true, defaults: { cwd: home }, eventFlushDelayMs: 0, killGraceMs: 1000, ...options });
    this.runtime.events.subscribe((notification) => {
      this.notifications.push(notification);
      for (const wake of this.waiters) wake();
    });
  }

  static home(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-jobs-'));
  }

  call<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.runtime.dispatcher.call(method, params, ctx);
  }

  /** Every job/updated of one job, in order. */
  updates(jobId: string): Job[] {
    return this.notifications.flatMap((n) => (n.method === 'job/updated' && n.params.job.id === jobId ? [n.params.job] : []));
  }

  /** All output of one job's run as received. */
  output(jobId: string, attempt?: number): string {
    return this.notifications
      .flatMap((n) => (n.method === 'job/output/delta' && n.params.jobId === jobId && (attempt === undefined || n.params.attempt === attempt) ? [n.params.delta] : []))
      .join('');
  }

  /** Each job/output/delta of one run: where in the log it begins, and its text. */
  deltas(jobId: string, attempt: number): { offset: number; delta: string }[] {
    return this.notifications.flatMap((n) =>
      n.method === 'job/output/delta' && n.params.jobId === jobId && n.params.attempt === attempt ? [{ offset: n.params.offset, delta: n.params.delta }] : [],
    );
  }

  /** Resolves when `check` holds after some notification (or already does); fails after `timeoutMs`. */
  until<T>(what: string, check: () => T | undefined | false | null, timeoutMs = 20_000): Promise<T> {
    const now = check();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const wake = () => {
        const value = check();
        if (value) {
          done();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
    });
  }

  /** The newest job/updated of `jobId` matching `match`. */
  untilJob(jobId: string, what: string, match: (job: Job) => boolean, timeoutMs?: number): Promise<Job> {
    return this.until(what, () => this.updates(jobId).findLast(match), timeoutMs);
  }
}

/**
 * What a client shows from output deltas, keeping from each only the bytes past what it already has
 * (the offset rule of `job/output/delta`): each byte once, even when a restart sends some again.
 */
export function stitchOutput(deltas: readonly { offset: number; delta: string }[], have: Buffer = Buffer.alloc(0)): Buffer {
  let shown: Buffer = have;
  for (const { offset, delta } of deltas) {
    const bytes = Buffer.from(delta, 'utf8');
    if (offset > shown.length) throw new Error(`a gap in the output: a delta at ${offset} after ${shown.length} bytes`);
    const fresh = bytes.subarray(Math.min(bytes.length, shown.length - offset));
    shown = Buffer.concat([shown, fresh]);
  }
  return shown;
}
