/**
 * Jobs: (1) transitions persisted in batches — 10,000 jobs paused and resumed
 * through the dispatcher at once, each answered only after its change is
 * durable in SQLite and announced (`job/updated`); (2) `job/list` first page
 * with those 10,000 jobs in the store. In-process (no carrier), jobs held in
 * the queue (concurrency 0) so no process runs.
 */
import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../electron/runtime/context.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { summarize, type LatencySummary } from './stats.js';

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

export interface JobsBenchReport {
  readonly jobs: number;
  /** job/create of every job, issued together. */
  readonly createPerSecond: number;
  /** Pause then resume of every job, issued together: transitions durable and announced per second. */
  readonly transitionsPerSecond: number;
  /** The same per second of this process's CPU time: on a shared, loaded machine, wall time overstates the cost. */
  readonly transitionsPerCpuSecond: number;
  readonly transitions: number;
  readonly jobUpdatedNotifications: number;
  readonly listFirstPage: LatencySummary;
  readonly listFirstPageByStatus: LatencySummary;
  readonly listFirstPageSearch: LatencySummary;
}

export async function jobsBench(options: { home: string; jobs?: number; listRuns?: number }): Promise<JobsBenchReport> {
  const count = options.jobs ?? 10_000;
  const runtime = createTestRuntime({ home: options.home, jobConcurrency: 0, defaults: { cwd: options.home } });
  let announced = 0;
  runtime.events.subscribe((n) => {
    if (n.method === 'job/updated') announced += 1;
  });
  try {
    const call = runtime.dispatcher.call.bind(runtime.dispatcher);
    const createStarted = performance.now();
    const created = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        call('job/create', { kind: 'command', name: `bench job ${i}`, command: `make target-${i % 97}`, cwd: options.home }, ctx),
      ),
    );
    const createSeconds = (performance.now() - createStarted) / 1000;
    const ids = created.map((r) => r.job.id);

    announced = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await Promise.all(ids.map((jobId) => call('job/pause', { jobId }, ctx)));
    await Promise.all(ids.map((jobId) => call('job/resume', { jobId }, ctx)));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const transitions = ids.length * 2;

    const runs = options.listRuns ?? 200;
    const time = async (params: Parameters<typeof runtime.jobs.list>[0]) => {
      const samples: number[] = [];
      for (let i = 0; i < runs; i += 1) {
        const at = performance.now();
        await call('job/list', params, ctx);
        samples.push(performance.now() - at);
      }
      return summarize(samples);
    };
    return {
      jobs: count,
      createPerSecond: Math.round(count / createSeconds),
      transitionsPerSecond: Math.round(transitions / seconds),
      transitionsPerCpuSecond: Math.round(transitions / cpuSeconds),
      transitions,
      jobUpdatedNotifications: announced,
      listFirstPage: await time({}),
      listFirstPageByStatus: await time({ status: 'queued' }),
      listFirstPageSearch: await time({ search: 'target-42' }),
    };
  } finally {
    await runtime.shutdown();
  }
}
