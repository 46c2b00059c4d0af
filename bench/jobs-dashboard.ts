/**
 * The Jobs dashboard with 10,000 jobs in the store, in Debian's Chromium
 * against `wheelhouse serve`: time from clicking "Jobs" to rows on screen
 * (first open: lazy chunk + every page of job/list), time to mount the list
 * again from a job page (data already loaded), and frame intervals while the
 * list scrolls continuously.
 */
import path from 'node:path';
import { launchChromium, openClientPage, repoRoot, requireBuilt } from '../e2e/harness.js';
import { startRuntimeProcess } from '../e2e/runtime-process.js';
import type { JobEntry } from '../electron/runtime/jobs/job-entry.js';
import { rowOf } from '../electron/runtime/jobs/job-entry.js';
import * as machine from '../electron/runtime/jobs/job-state.js';
import { StateStore } from '../electron/store/state-store.js';
import { ms, quantile } from './stats.js';

export interface JobsDashboardReport {
  readonly jobs: number;
  readonly firstOpenMs: number;
  readonly remountMs: number;
  readonly scrollFrames: number;
  readonly frameIntervalMedianMs: number;
  readonly frameIntervalP95Ms: number;
  /** Frames that took longer than 1.5 × 16.7 ms. */
  readonly slowFrames: number;
}

/** Finished and paused jobs only: the runtime starts none of them. */
function seed(home: string, count: number): void {
  const store = StateStore.open(path.join(home, 'state.sqlite'));
  try {
    const rows = [];
    const t0 = Date.now() - count * 1000;
    for (let i = 0; i < count; i += 1) {
      const at = t0 + i * 1000;
      const state = machine.enqueue(`job-bench-${i}`, `nightly build ${i}`, at);
      machine.setRunning(state, at + 1);
      machine.updateProgress(state, (i * 7) % 100, null, at + 2);
      if (i % 4 === 0) machine.complete(state, at + 3);
      else if (i % 4 === 1) machine.fail(state, 'exited with code 2', at + 3);
      else if (i % 4 === 2) machine.cancel(state, at + 3);
      else machine.pause(state, null, at + 3);
      const entry: JobEntry = {
        state, kind: 'command', spec: { command: `make -j4 target-${i}`, cwd: home }, agent: null, threadId: null, scheduleId: null, scheduleNotify: null, approvalWait: null, exitCode: i % 4 === 1 ? 2 : null,
        runs: 1, manualRetries: 0, continueRun: false, queueOrder: i + 1, activeMs: 1000 + i, activeSince: null, etaMs: null, live: null, retryTimer: null, lastCommitAt: 0,
      };
      // A failed job's retry would be due long ago: none scheduled, so nothing runs.
      if (i % 4 === 1) state.retry.nextRetryAt = null;
      rows.push(rowOf(entry, at + 3));
    }
    store.jobs.upsertMany(rows);
  } finally {
    store.close();
  }
}

export async function jobsDashboardBench(options: { home: string; jobs?: number; screenshot?: string }): Promise<JobsDashboardReport> {
  requireBuilt('dist/node/cli.js', 'dist/renderer/index.html');
  const count = options.jobs ?? 10_000;
  seed(options.home, count);
  const runtime = await startRuntimeProcess(repoRoot, options.home);
  const browser = await launchChromium();
  try {
    const page = await openClientPage(browser, runtime.url, []);
    await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
    await page.getByTestId('setup-later').click();
    // Page scripts are passed as text: tsx would wrap named functions in a helper the page lacks.
    const timeToRows = (button: string) =>
      page.evaluate<number>(`new Promise((resolve) => {
        const started = performance.now();
        document.querySelector('[data-testid="${button}"]').click();
        const check = () => (document.querySelector('[data-testid="job-row"]') ? resolve(performance.now() - started) : requestAnimationFrame(check));
        check();
      })`);
    const firstOpenMs = await timeToRows('open-jobs');
    await page.getByTestId('job-row').first().click();
    await page.getByTestId('job-page').waitFor();
    const remountMs = await timeToRows('job-back');
    const frames = await page.evaluate<number[]>(`new Promise((resolve) => {
      const scroller = document.querySelector('[data-testid="jobs-scroll"]');
      const intervals = [];
      let last = performance.now();
      const step = (now) => {
        intervals.push(now - last);
        last = now;
        scroller.scrollTop += 180;
        if (intervals.length < 240) requestAnimationFrame(step);
        else resolve(intervals.slice(1));
      };
      requestAnimationFrame(step);
    })`);
    if (options.screenshot) await page.screenshot({ path: options.screenshot });
    const sorted = [...frames].sort((a, b) => a - b);
    return {
      jobs: count,
      firstOpenMs: ms(firstOpenMs),
      remountMs: ms(remountMs),
      scrollFrames: frames.length,
      frameIntervalMedianMs: ms(quantile(sorted, 0.5)),
      frameIntervalP95Ms: ms(quantile(sorted, 0.95)),
      slowFrames: frames.filter((f) => f > 25).length,
    };
  } finally {
    await browser.close();
    await runtime.stop();
  }
}
