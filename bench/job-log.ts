/**
 * The job page's output in Debian's Chromium against `wheelhouse serve`: a
 * finished job whose log has 1,000,000 lines beside one with 1,000 (the
 * baseline), opened from the dashboard. Per log: time from the click to its
 * last line on screen (the first open builds the log's line index), the same
 * again with the index built, frame intervals while the output scrolls
 * continuously, 200 mouse-wheel steps, a search for a line near the top (first match shown, whole log searched),
 * and Home (the first line fetched and drawn).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, openClientPage, repoRoot, requireBuilt } from '../e2e/harness.js';
import { startRuntimeProcess } from '../e2e/runtime-process.js';
import { rowOf, type JobEntry } from '../electron/runtime/jobs/job-entry.js';
import * as machine from '../electron/runtime/jobs/job-state.js';
import { StateStore } from '../electron/store/state-store.js';
import { ms, quantile } from './stats.js';

export interface JobLogFigures {
  readonly lines: number;
  readonly logBytes: number;
  /** Click on the row to the last line drawn, the log never read before (its line index is built then). */
  readonly openToLastLineMs: number;
  /** The same with the index already built (the page opened a second time). */
  readonly reopenToLastLineMs: number;
  readonly scrollFrames: number;
  readonly frameIntervalMedianMs: number;
  readonly frameIntervalP95Ms: number;
  /** Frames longer than 1.5 × 16.7 ms. */
  readonly slowFrames: number;
  /** 200 wheel steps of 100 px, each handled by the page before the next is sent. */
  readonly wheel200StepsMs: number;
  /** Typing a line's text near the top to that line on screen, marked (the search goes on past it). */
  readonly searchFirstMatchMs: number;
  /** ...to the whole log searched ("1 of 1"). */
  readonly searchCompleteMs: number;
  /** Home key to the first line drawn. */
  readonly homeToFirstLineMs: number;
}

export interface JobLogReport {
  readonly million: JobLogFigures;
  readonly baseline: JobLogFigures;
}

const line = (i: number) =>
  i % 20 === 0
    ? `\u001b[32m✓\u001b[0m test ${String(i).padStart(7, '0')} passed in ${(i % 97) + 3} ms \u001b[2m(suite ${i % 31})\u001b[0m`
    : `  compiling module ${String(i).padStart(7, '0')} of the workspace ... ok`;

/** Writes a log of `count` lines as a pty leaves it (CRLF endings), a megabyte at a time. */
function writeLog(file: string, count: number): number {
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    let chunk = '';
    for (let i = 1; i <= count; i += 1) {
      chunk += `${line(i)}\r\n`;
      if (chunk.length > 1024 * 1024) {
        fs.writeSync(fd, chunk);
        chunk = '';
      }
    }
    fs.writeSync(fd, chunk);
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

/** Two finished command jobs, each with one run whose log is written here. */
function seed(home: string, logs: ReadonlyArray<{ id: string; name: string; lines: number }>): Map<string, number> {
  const sizes = new Map<string, number>();
  const store = StateStore.open(path.join(home, 'state.sqlite'));
  try {
    const dir = path.join(home, 'bench-logs');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const t0 = Date.now() - 60_000;
    for (const [k, log] of logs.entries()) {
      const logPath = path.join(dir, `${log.id}.log`);
      sizes.set(log.id, writeLog(logPath, log.lines));
      const state = machine.enqueue(log.id, log.name, t0 + k);
      machine.setRunning(state, t0 + k + 1);
      state.detail = 'exited with code 0';
      machine.complete(state, t0 + k + 2);
      const entry: JobEntry = {
        state, kind: 'command', spec: { command: `make test-${k}`, cwd: home }, agent: null, threadId: null, scheduleId: null, scheduleNotify: null, approvalWait: null, exitCode: 0,
        runs: 1, manualRetries: 0, continueRun: false, queueOrder: k + 1, activeMs: 1000, activeSince: null, etaMs: null, live: null, retryTimer: null, lastCommitAt: 0,
      };
      store.jobs.upsertMany(
        [rowOf(entry, t0 + k + 2)],
        [{ jobId: log.id, run: 1, logPath, startedAtMs: t0 + k + 1, endedAtMs: null, outcome: null, handle: null, streamedBytes: 0 }],
        [{ jobId: log.id, run: 1, endedAtMs: t0 + k + 2, outcome: 'completed' }],
      );
    }
  } finally {
    store.close();
  }
  return sizes;
}

/** Clicks the job's row and resolves with the ms until line `last` (1-based) is drawn. */
function openToLine(page: Page, jobId: string, last: number): Promise<number> {
  // Page scripts are passed as text: tsx would wrap named functions in a helper the page lacks.
  return page.evaluate<number>(`new Promise((resolve) => {
    const started = performance.now();
    document.querySelector('[data-testid="job-row"][data-job-id="${jobId}"] [data-testid="job-row-open"]').click();
    const check = () => {
      const row = document.querySelector('[data-testid="job-log"] .log-line[data-line="${last}"]:not([data-loading])');
      if (row) resolve(performance.now() - started);
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

async function measure(page: Page, jobId: string, lines: number, logBytes: number): Promise<JobLogFigures> {
  await page.getByTestId('open-jobs').click();
  await page.locator(`[data-testid="job-row"][data-job-id="${jobId}"]`).waitFor();
  const openToLastLineMs = await openToLine(page, jobId, lines);
  await page.getByTestId('job-back').click();
  await page.locator(`[data-testid="job-row"][data-job-id="${jobId}"]`).waitFor();
  const reopenToLastLineMs = await openToLine(page, jobId, lines);

  // Continuous scrolling up from the end, one step a frame.
  const frames = await page.evaluate<number[]>(`new Promise((resolve) => {
    const scroller = document.querySelector('[data-testid="job-log"]');
    const intervals = [];
    let last = performance.now();
    const step = (now) => {
      intervals.push(now - last);
      last = now;
      scroller.scrollTop -= 180;
      if (intervals.length < 240) requestAnimationFrame(step);
      else resolve(intervals.slice(1));
    };
    requestAnimationFrame(step);
  })`);
  const sorted = [...frames].sort((a, b) => a - b);

  await page.getByTestId('job-log').hover();
  const wheelStart = performance.now();
  for (let i = 0; i < 200; i += 1) await page.mouse.wheel(0, -100);
  const wheel200StepsMs = performance.now() - wheelStart;

  const searchStart = performance.now();
  await page.getByTestId('log-search').fill('module 0000042 ');
  await page.locator('[data-testid="job-log"] .log-line[data-line="42"] mark').waitFor({ timeout: 120_000 });
  const searchFirstMatchMs = performance.now() - searchStart;
  await page.locator('[data-testid="log-search-count"]', { hasText: /^1 of 1$/ }).waitFor({ timeout: 120_000 });
  const searchCompleteMs = performance.now() - searchStart;
  await page.getByTestId('log-search').fill('');

  await page.getByTestId('job-log').focus();
  const homeStart = performance.now();
  await page.keyboard.press('Home');
  await page.locator('[data-testid="job-log"] .log-line[data-line="1"]:not([data-loading])').waitFor();
  const homeToFirstLineMs = performance.now() - homeStart;
  await page.getByTestId('job-back').click();

  return {
    lines,
    logBytes,
    openToLastLineMs: ms(openToLastLineMs),
    reopenToLastLineMs: ms(reopenToLastLineMs),
    scrollFrames: frames.length,
    frameIntervalMedianMs: ms(quantile(sorted, 0.5)),
    frameIntervalP95Ms: ms(quantile(sorted, 0.95)),
    slowFrames: frames.filter((f) => f > 25).length,
    wheel200StepsMs: ms(wheel200StepsMs),
    searchFirstMatchMs: ms(searchFirstMatchMs),
    searchCompleteMs: ms(searchCompleteMs),
    homeToFirstLineMs: ms(homeToFirstLineMs),
  };
}

export async function jobLogBench(options: { home: string; lines?: number; screenshot?: string }): Promise<JobLogReport> {
  requireBuilt('dist/node/cli.js', 'dist/renderer/index.html');
  const lines = options.lines ?? 1_000_000;
  const sizes = seed(options.home, [
    { id: 'job-bench-million', name: 'A million lines', lines },
    { id: 'job-bench-baseline', name: 'A thousand lines', lines: 1000 },
  ]);
  const runtime = await startRuntimeProcess(repoRoot, options.home);
  const browser = await launchChromium();
  try {
    const page = await openClientPage(browser, runtime.url, []);
    await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
    await page.getByTestId('setup-later').click();
    const baseline = await measure(page, 'job-bench-baseline', 1000, sizes.get('job-bench-baseline')!);
    const million = await measure(page, 'job-bench-million', lines, sizes.get('job-bench-million')!);
    if (options.screenshot) await page.screenshot({ path: options.screenshot });
    return { million, baseline };
  } finally {
    await browser.close();
    await runtime.stop();
  }
}
