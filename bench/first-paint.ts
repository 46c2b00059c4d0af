/**
 * The desktop window's start on the browser host: `wheelhouse serve` spawned
 * on a home with no threads (baseline) and on one with many (worst case), and
 * a fresh page of Debian's Chromium opened on it, as the e2e harness does.
 * From navigation start: first paint, first contentful paint, the thread list
 * in the DOM and painted (its first row, or "No threads yet"), and a click on
 * that row, once painted, having painted the thread's reply. Each round
 * spawns a fresh server (spawn -> URL printed is timed too) and opens a fresh
 * browser context (own storage and cache) for each home in turn, so load from
 * other work on the machine falls on both alike. The Electron window is not
 * driven; the report says why.
 *
 *   node --import tsx bench/first-paint.ts [threads] [rounds]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchChromium, repoRoot, requireBuilt } from '../e2e/harness.js';
import { startRuntimeProcess } from '../e2e/runtime-process.js';
import type { RequestContext } from '../electron/runtime/context.js';
import { mockModelConfig } from '../test-support/agent-commands.js';
import { startMockModelServer, type MockModelServer } from '../test-support/mock-model/index.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { createTestRuntime } from '../test-support/test-runtime.js';
import { seedThread } from './resume.js';
import { ms, quantile } from './stats.js';

/** Median and p90 of one figure over the page loads. */
export interface Spread {
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly minMs: number;
  readonly maxMs: number;
}

export interface HomeFigures {
  readonly threads: number;
  readonly pageLoads: number;
  /** `wheelhouse serve` spawned until it printed its URL (listening, store open). */
  readonly serverSpawnToReady: Spread;
  readonly firstPaint: Spread | null;
  readonly firstContentfulPaint: Spread | null;
  readonly domContentLoaded: Spread;
  /** Navigation start until the first thread rows are in the DOM (or "No threads yet" with none). */
  readonly threadListReady: Spread;
  /** The same list painted on screen (Element Timing of its first text); null if Chromium did not report it. */
  readonly threadListPainted: Spread | null;
  /** Thread rows in the page when the first one appeared (the list renders all of them at once). */
  readonly rowsAtFirstRender: number;
  /** Navigation start until a click on the first row has put that thread's reply in the DOM; null without threads. */
  readonly threadOpenedAfterClick: Spread | null;
  /** That reply painted on screen (Element Timing). */
  readonly threadPaintedAfterClick: Spread | null;
  /** From that click (made once the rows were painted) to the thread's reply painted. */
  readonly clickToThreadPainted: Spread | null;
}

export interface FirstPaintReport {
  readonly host: string;
  readonly chromium: string;
  readonly loadAverage1m: { readonly atStart: number; readonly atEnd: number };
  readonly baseline: HomeFigures;
  readonly worstCase: HomeFigures;
  /** Console and page errors seen in any load (none in a clean run). */
  readonly pageErrors: readonly string[];
  readonly electron: string;
}

/** What the page records, in performance.now() time (0 = navigation start). */
interface PageMarks {
  readonly listReadyMs: number;
  readonly rows: number;
  readonly clickedMs: number | null;
  readonly threadShownMs: number | null;
  /** When the text waited for was painted (Element Timing), null if the browser never reported it. */
  readonly listPaintedMs: number | null;
  readonly threadPaintedMs: number | null;
  readonly firstPaintMs: number | null;
  readonly firstContentfulPaintMs: number | null;
  readonly domContentLoadedMs: number;
}

interface Sample extends PageMarks {
  readonly spawnToReadyMs: number;
}

const MARKS = '__wheelhouseFirstPaint';

/**
 * Runs in the page before its own scripts (a string: tsx would wrap a named
 * function in a helper the page lacks). Watches the DOM from the start, so the
 * list's first render is caught whenever it happens. The text it waited for
 * gets an `elementtiming` name as it enters the DOM (before it is painted),
 * so the Element Timing API says when it was on screen; once the first row
 * is, it is clicked, and the opened thread's reply is timed the same way.
 */
function pageWatcher(expectRows: boolean): string {
  return `(() => {
    const marks = { listReadyMs: 0, rows: 0, clickedMs: null, threadShownMs: null };
    const painted = {};
    let firstRow = null;
    let clicked = null;
    // As a person would: the click comes once the rows are on screen, not the moment they are in the DOM.
    const clickWhenPainted = () => {
      if (clicked !== null || firstRow === null || painted.list === undefined) return;
      clicked = firstRow.getAttribute('data-thread-id');
      firstRow.querySelector('.thread-row-main').click();
      marks.clickedMs = performance.now();
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) painted[entry.identifier] = entry.renderTime || entry.loadTime;
      clickWhenPainted();
    }).observe({ type: 'element', buffered: true });
    const nameFirstText = (root, name) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, { acceptNode: (node) => (node.textContent.trim() ? 1 : 3) });
      walker.nextNode()?.parentElement.setAttribute('elementtiming', name);
    };
    const settled = () => {
      if (!${expectRows}) {
        const empty = document.querySelector('[data-testid="thread-list"] .thread-empty-icon');
        if (!empty) return false;
        marks.listReadyMs = performance.now();
        nameFirstText(empty.parentElement, 'list');
        return true;
      }
      if (firstRow === null) {
        firstRow = document.querySelector('[data-testid="thread-row"]');
        if (firstRow === null) return false;
        marks.listReadyMs = performance.now();
        marks.rows = document.querySelectorAll('[data-testid="thread-row"]').length;
        nameFirstText(firstRow, 'list');
        return false;
      }
      if (clicked === null) return false;
      const reply = document.querySelector('[data-testid="conversation-pane"][data-thread-id="' + clicked + '"] [data-testid="agent-message"]');
      if (!reply) return false;
      marks.threadShownMs = performance.now();
      nameFirstText(reply, 'thread');
      return true;
    };
    window.${MARKS} = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (!settled()) return;
        observer.disconnect();
        resolve(marks);
      });
      observer.observe(document, { childList: true, subtree: true });
    });
    window.${MARKS}Painted = (name) => painted[name] ?? null;
  })()`;
}

/**
 * Waits for the watcher, then for the load event, the first contentful paint
 * (an empty list can be in the DOM before either) and the paint of the text
 * it waited for, and adds the browser's own paint and navigation timings. The
 * 10 s bound only keeps a page that never paints from hanging the bench (those
 * figures are then null).
 */
const COLLECT = `(async () => {
  const marks = await window.${MARKS};
  if (document.readyState !== 'complete') await new Promise((resolve) => addEventListener('load', resolve, { once: true }));
  const paint = (name) => performance.getEntriesByType('paint').find((entry) => entry.name === name)?.startTime ?? null;
  const painted = () => paint('first-contentful-paint') !== null && window.${MARKS}Painted('list') !== null && (marks.threadShownMs === null || window.${MARKS}Painted('thread') !== null);
  const until = performance.now() + 10000;
  while (!painted() && performance.now() < until) await new Promise((resolve) => requestAnimationFrame(resolve));
  const navigation = performance.getEntriesByType('navigation')[0];
  return {
    ...marks,
    listPaintedMs: window.${MARKS}Painted('list'),
    threadPaintedMs: marks.threadShownMs === null ? null : window.${MARKS}Painted('thread'),
    firstPaintMs: paint('first-paint'),
    firstContentfulPaintMs: paint('first-contentful-paint'),
    domContentLoadedMs: navigation.domContentLoadedEventEnd,
  };
})()`;

const ctx: RequestContext = { session: { connectionId: 'bench', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** A home whose model is the mock (so the window opens past first run) holding `threads` threads, one finished turn each, in four projects. */
async function seedHome(temp: TempDirs, mock: MockModelServer, threads: number): Promise<string> {
  const home = temp.make('wheelhouse-bench-paint-');
  fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(mock));
  const projects = ['api', 'web', 'infra', 'docs'].map((name) => {
    const folder = path.join(temp.make('wheelhouse-bench-project-'), name);
    fs.mkdirSync(folder);
    return folder;
  });
  const runtime = createTestRuntime({ home });
  try {
    for (let i = 0; i < threads; i += 1) {
      const threadId = seedThread(runtime, 1, projects[i % projects.length]);
      await runtime.dispatcher.call('thread/name/set', { threadId, name: `Fix flaky test ${i + 1} in module ${i % 37}` }, ctx);
    }
  } finally {
    await runtime.shutdown();
  }
  return home;
}

/** One fresh server on `home` and one fresh page on it. */
async function loadOnce(browser: Browser, home: string, expectRows: boolean, errors: string[]): Promise<Sample> {
  const spawned = performance.now();
  const runtime = await startRuntimeProcess(repoRoot, home);
  const spawnToReadyMs = performance.now() - spawned;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    await page.addInitScript(pageWatcher(expectRows));
    await page.goto(runtime.url);
    const marks = await withinDeadline(page.evaluate<PageMarks>(COLLECT), expectRows);
    return { ...marks, spawnToReadyMs };
  } finally {
    await context.close();
    await runtime.stop();
  }
}

/** A window that never shows its list would hang the run; after two minutes it fails, saying what never came. */
async function withinDeadline(marks: Promise<PageMarks>, expectRows: boolean): Promise<PageMarks> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    const waitedFor = expectRows ? 'thread rows, or the clicked thread' : '"No threads yet"';
    timer = setTimeout(() => reject(new Error(`the window showed no ${waitedFor} within 120 s`)), 120_000);
  });
  try {
    return await Promise.race([marks, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function spread(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  return { medianMs: ms(quantile(sorted, 0.5)), p90Ms: ms(quantile(sorted, 0.9)), minMs: ms(sorted[0]!), maxMs: ms(sorted[sorted.length - 1]!) };
}

function spreadOf(samples: readonly (number | null)[]): Spread | null {
  const present = samples.filter((value): value is number => value !== null);
  return present.length === samples.length && present.length > 0 ? spread(present) : null;
}

function figures(threads: number, samples: readonly Sample[]): HomeFigures {
  return {
    threads,
    pageLoads: samples.length,
    serverSpawnToReady: spread(samples.map((s) => s.spawnToReadyMs)),
    firstPaint: spreadOf(samples.map((s) => s.firstPaintMs)),
    firstContentfulPaint: spreadOf(samples.map((s) => s.firstContentfulPaintMs)),
    domContentLoaded: spread(samples.map((s) => s.domContentLoadedMs)),
    threadListReady: spread(samples.map((s) => s.listReadyMs)),
    threadListPainted: spreadOf(samples.map((s) => s.listPaintedMs)),
    rowsAtFirstRender: Math.min(...samples.map((s) => s.rows)),
    threadOpenedAfterClick: threads > 0 ? spreadOf(samples.map((s) => s.threadShownMs)) : null,
    threadPaintedAfterClick: threads > 0 ? spreadOf(samples.map((s) => s.threadPaintedMs)) : null,
    clickToThreadPainted: threads > 0 ? spreadOf(samples.map((s) => (s.threadPaintedMs !== null && s.clickedMs !== null ? s.threadPaintedMs - s.clickedMs : null))) : null,
  };
}

/** Why the Electron window is or is not part of this run. */
function electronNote(): string {
  const binaryRecord = path.join(repoRoot, 'node_modules/electron/path.txt');
  if (!fs.existsSync(binaryRecord)) {
    return 'not measured: no Electron binary here (node_modules/electron has no path.txt; its install script, which downloads the binary, is off in package.json allowScripts and the machine has no internet)';
  }
  return 'not measured: an Electron binary is installed, but this bench drives the browser host only (the window is the same renderer)';
}

const loadAverage = () => Math.round(os.loadavg()[0]! * 100) / 100;

/** `rounds` page loads on a home without threads and on one with `threads`, alternating. */
export async function firstPaint(options: { temp: TempDirs; threads?: number; rounds?: number }): Promise<FirstPaintReport> {
  requireBuilt('dist/node/cli.js', 'dist/renderer/index.html');
  const threads = options.threads ?? 500;
  const rounds = options.rounds ?? 7;
  const atStart = loadAverage();
  const mock = await startMockModelServer();
  try {
    const homes = [
      { threads: 0, home: await seedHome(options.temp, mock, 0), samples: [] as Sample[] },
      { threads, home: await seedHome(options.temp, mock, threads), samples: [] as Sample[] },
    ];
    const browser = await launchChromium();
    const errors: string[] = [];
    try {
      // One unrecorded load of each first: the first start after seeding pays for cold files and caches.
      for (const home of homes) await loadOnce(browser, home.home, home.threads > 0, errors);
      for (let round = 0; round < rounds; round += 1) {
        for (const home of homes) home.samples.push(await loadOnce(browser, home.home, home.threads > 0, errors));
      }
      const [baseline, worstCase] = homes.map((home) => figures(home.threads, home.samples));
      return {
        host: 'browser host: `wheelhouse serve` + Debian Chromium (headless, playwright-core), a fresh server and browser context per load',
        chromium: browser.version(),
        loadAverage1m: { atStart, atEnd: loadAverage() },
        baseline: baseline!,
        worstCase: worstCase!,
        pageErrors: [...new Set(errors)].slice(0, 10),
        electron: electronNote(),
      };
    } finally {
      await browser.close();
    }
  } finally {
    await mock.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const temp = new TempDirs();
  try {
    const [threads, rounds] = process.argv.slice(2).map(Number);
    const report = await firstPaint({ temp, ...(threads ? { threads } : {}), ...(rounds ? { rounds } : {}) });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    temp.cleanup();
  }
}
