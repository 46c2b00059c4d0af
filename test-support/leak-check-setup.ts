import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { describeLeaks, LeakWatch, OWNER_VARIABLE, recordTimers, type Leak } from './leak-check.js';
import { cancelPendingWaits } from './waiting.js';

/**
 * Vitest setup file: a test fails if it leaves behind a child process, an
 * open server, socket or pipe, an active timer it created, or a wait that
 * never resolved; so does a file that leaves a process running after its last
 * test (a process whose parent died included). What was left is closed, so
 * the next test starts clean. Vitest runs these hooks around the file's own
 * (`sequence.hooks: 'stack'`): the file's afterEach clean-up comes first.
 */
process.env[OWNER_VARIABLE] = String(process.pid);
recordTimers();

/** How long things the test closed may take to finish closing (a socket whose peer just died). */
const SETTLE_MS = 5_000;

let fileWatch: LeakWatch;
let testWatch: LeakWatch | undefined;

/** What `watch` still finds once closing (and opening: a listen resolves its address first) has had `SETTLE_MS` to finish. */
async function settledLeaks(watch: LeakWatch): Promise<Leak[]> {
  await new Promise((resolve) => setImmediate(resolve));
  const giveUpAt = performance.now() + SETTLE_MS;
  let leaks = watch.leaks();
  while (leaks.length > 0 && performance.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    leaks = watch.leaks();
  }
  return leaks;
}

function fail(leaks: readonly Leak[], when: string): void {
  if (leaks.length === 0) return;
  for (const leak of leaks) leak.dispose();
  throw new Error(describeLeaks(leaks, when));
}

beforeAll(() => {
  fileWatch = new LeakWatch(String(process.pid));
});

beforeEach(() => {
  testWatch = new LeakWatch();
});

afterEach(async () => {
  const waits = cancelPendingWaits('the test ended');
  const watch = testWatch;
  testWatch = undefined;
  const leaks = watch ? await settledLeaks(watch) : [];
  const problems: string[] = [];
  if (waits.length > 0) problems.push(`The test ended while still waiting for: ${waits.join('; ')}.`);
  try {
    fail(leaks, 'The test');
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
});

afterAll(async () => {
  fail(await settledLeaks(fileWatch), 'This file');
});
