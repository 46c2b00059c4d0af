import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { AnyNotification, ClientMethod, Job, ParamsOf, ResultOf } from '../shared/protocol/index.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/host/runtime.js';
import { expectNoRunsLeft } from './detached-runs.js';
import { createTestRuntime, settledCaller, type TestRuntimeOptions } from './test-runtime.js';
import { waitUntil } from './waiting.js';

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** A runtime on a temp home with every notification it sends kept, for job tests. */
export class JobTestKit {
  readonly runtime: Runtime;
  readonly notifications: AnyNotification[] = [];

  constructor(
    readonly home: string,
    options: Partial<TestRuntimeOptions> = {},
  ) {
    this.runtime = createTestRuntime({ home, validateResults: true, defaults: { cwd: home }, killGraceMs: 1000, ...options });
    this.runtime.events.subscribe((notification) => this.notifications.push(notification));
  }

  static home(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-jobs-'));
  }

  /** Settles once the call's notifications (output printed before a pause, say) have arrived too. */
  call<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return settledCaller(this.runtime, ctx)(method, params);
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

  /** Resolves when `check` holds (checked again after each notification). */
  until<T>(what: string, check: () => T | undefined | false | null): Promise<T> {
    return waitUntil(check, { what, wakeOn: (wake) => this.runtime.events.subscribe(wake) });
  }

  /** The newest job/updated of `jobId` matching `match`. */
  untilJob(jobId: string, what: string, match: (job: Job) => boolean): Promise<Job> {
    return this.until(what, () => this.updates(jobId).findLast(match));
  }
}

/** Homes and kits a test file makes, all ended after each test. */
export interface JobKits {
  /** A fresh temp home, removed after the test. */
  newHome(): string;
  /** A kit on `home`, shut down after the test. */
  kit(home: string, options?: Partial<TestRuntimeOptions>): JobTestKit;
  /** Leaves a kit the test has shut down (or closed like a crash) itself out of the shutdown after it. */
  release(kit: JobTestKit): void;
}

/**
 * Registers the afterEach job tests share: every kit shut down, then every
 * home checked for runs still going (a failure if any) and removed.
 */
export function useJobKits(): JobKits {
  const kits: JobTestKit[] = [];
  const homes: string[] = [];
  afterEach(async () => {
    for (const kit of kits.splice(0)) await kit.runtime.shutdown();
    try {
      for (const home of homes) expectNoRunsLeft(home);
    } finally {
      for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
    }
  });
  return {
    newHome: () => {
      const home = JobTestKit.home();
      homes.push(home);
      return home;
    },
    kit: (home, options) => {
      const kit = new JobTestKit(home, options);
      kits.push(kit);
      return kit;
    },
    release: (kit) => {
      kits.splice(kits.indexOf(kit), 1);
    },
  };
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
