import type { Job, JobStatus } from '../../shared/protocol/index.js';
import type { HostRuntimeOptions } from '../host/create-runtime.js';
import { failedRuntime, startRuntime, type DesktopHandlers, type StartingRuntime } from '../host/start-runtime.js';
import type { CarrierRuntime } from '../host/carrier-runtime.js';
import { RpcHost } from '../server/rpc-host.js';
import type { DesktopActivity } from './desktop-activity.js';
import type { JobsOnQuit } from './quit-flow.js';

/** One runtime of the desktop app and what the shell attached to it. */
export interface DesktopServices {
  /** Opens its stores while the window loads; the renderer's requests wait for them. */
  readonly runtime: StartingRuntime;
  /** Every renderer connection attaches here (through the IPC carrier). */
  readonly host: RpcHost;
  /** Detaches the shell, closes the connections and shuts the runtime down, keeping or stopping running jobs. */
  close(jobs: JobsOnQuit): Promise<void>;
}

export interface DesktopServicesOptions {
  readonly runtime: HostRuntimeOptions;
  /** The shell's answers to the desktop methods. */
  readonly desktop: DesktopHandlers;
  /** Fed with the runtime's live job events and approvals (the tray, notifications, the quit question). */
  readonly activity: DesktopActivity;
  readonly logError: (message: string, error: unknown) => void;
}

/** Statuses whose jobs the shell must know at start: the ones that run, may run, or may be retried. */
const LIVE_STATUSES: readonly JobStatus[] = ['queued', 'running', 'paused', 'failed'];

/**
 * Starts a runtime for the desktop app with its RpcHost, and feeds the
 * shell's activity from it. A runtime that cannot start (its home in use,
 * a broken database) still answers `initialize` and the desktop methods, so
 * the window can say what happened and offer a restart.
 */
export function openDesktopServices(options: DesktopServicesOptions): DesktopServices {
  let runtime: StartingRuntime;
  try {
    // Takes the home lock now; the stores open on the next tick.
    runtime = startRuntime(options.runtime, options.desktop);
  } catch (error) {
    runtime = failedRuntime(options.runtime, error, options.desktop);
  }
  runtime.ready.catch(() => undefined); // the lifecycle reports it
  const host = new RpcHost(runtime);
  const { activity } = options;
  const unsubscribe = runtime.events.subscribe((notification) => {
    if (notification.method === 'job/updated') activity.jobUpdated(notification.params.job);
    else if (notification.method === 'job/deleted') activity.jobDeleted(notification.params.jobId);
  });
  const removeSender = runtime.approvals.watch((pending, withdrawn) => activity.approvalWaiting(pending, withdrawn));
  runtime.ready.then(
    (opened) => activity.seed(jobsWithStatus(opened, LIVE_STATUSES)),
    () => undefined,
  );
  let closing: Promise<void> | null = null;
  return {
    runtime,
    host,
    close: (jobs) =>
      (closing ??= (async () => {
        unsubscribe();
        removeSender();
        host.close();
        await shutdownRuntime(runtime, jobs, options.logError);
        activity.clear();
      })()),
  };
}

/**
 * Shuts the runtime down; `stop` cancels the running jobs, `keep` leaves
 * command jobs running detached in the background, re-attached at the next
 * start (docs/job-runs.md).
 */
export async function shutdownRuntime(runtime: StartingRuntime, jobs: JobsOnQuit, logError: (message: string, error: unknown) => void): Promise<void> {
  try {
    await runtime.shutdown({ jobs });
  } catch (error) {
    logError('could not shut the runtime down cleanly', error);
  }
}

/** Pauses every running and queued job (the tray's "Pause all jobs"); returns how many were paused. */
export async function pauseAllJobs(runtime: CarrierRuntime, logError: (message: string, error: unknown) => void): Promise<number> {
  let paused = 0;
  for (const job of jobsWithStatus(runtime, ['running', 'queued'])) {
    try {
      await runtime.jobs.pause(job.id);
      paused += 1;
    } catch (error) {
      // It ended (or was paused elsewhere) meanwhile.
      logError(`could not pause job ${job.id}`, error);
    }
  }
  return paused;
}

/** Every job with one of `statuses`, across pages. */
export function jobsWithStatus(runtime: CarrierRuntime, statuses: readonly JobStatus[]): Job[] {
  const jobs: Job[] = [];
  let cursor: string | null = null;
  do {
    const page = runtime.jobs.list({ status: [...statuses], limit: 500, cursor });
    jobs.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return jobs;
}
