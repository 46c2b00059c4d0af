// The whole test suite, as CI runs it (`npm test`): build, typecheck, lint, unit and
// integration tests, then the e2e specs. Stops at the first failing step, lists
// every skipped test with its reason, and ends with one line CI reads:
// `N passed, N failed, N skipped`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const isWindows = process.platform === 'win32';
const npm = isWindows ? 'npm.cmd' : 'npm';
const npx = isWindows ? 'npx.cmd' : 'npx';
const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-test-results-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
/** Skipped tests of every step: file, name and the reason the test gave. */
const skippedTests = [];

function heading(title) {
  process.stdout.write(`\n${'='.repeat(72)}\n== ${title}\n${'='.repeat(72)}\n`);
}

/** Runs one step with inherited output; returns whether it succeeded. */
function run(title, command, args) {
  heading(`${title}  (${[command, ...args].join(' ')})`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: isWindows });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.error) process.stderr.write(`test: could not start ${command}: ${result.error.message}\n`);
  const ok = result.status === 0;
  process.stdout.write(`-- ${title}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds}s\n`);
  return ok;
}

/** Runs vitest and adds its counts (from scripts/test-summary-reporter.mjs) to the totals. */
function runVitest(title, extraArgs) {
  const report = path.join(resultsDir, `${title.replace(/\W+/g, '-')}.json`);
  process.env.WHEELHOUSE_TEST_SUMMARY = report;
  const ok = run(title, npx, ['vitest', 'run', ...extraArgs, '--reporter=default', '--reporter=./scripts/test-summary-reporter.mjs']);
  delete process.env.WHEELHOUSE_TEST_SUMMARY;
  if (!fs.existsSync(report)) {
    process.stderr.write(`test: ${title} reported no results; counting the run as one failure\n`);
    totals.failed += 1;
    return false;
  }
  const results = JSON.parse(fs.readFileSync(report, 'utf8'));
  totals.passed += results.passed;
  totals.failed += results.failed;
  totals.skipped += results.skipped.length;
  skippedTests.push(...results.skipped);
  // A file that fails to load counts no test as failed; still a failure.
  if (!ok && results.failed === 0) totals.failed += 1;
  return ok;
}

function listSkipped() {
  if (skippedTests.length === 0) return;
  heading(`SKIPPED (${skippedTests.length})`);
  for (const test of skippedTests) {
    process.stdout.write(`- ${test.file} > ${test.name}\n    why: ${test.reason ?? 'no reason given (the test should pass one to ctx.skip)'}\n`);
  }
}

function summarize(ok) {
  fs.rmSync(resultsDir, { recursive: true, force: true });
  listSkipped();
  heading(ok ? 'ALL TESTS PASSED' : 'TESTS FAILED');
  process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  process.exit(ok ? 0 : 1);
}

function stopAt(step) {
  fs.rmSync(resultsDir, { recursive: true, force: true });
  heading(`STOPPED: ${step} failed (no tests were run)`);
  process.exit(1);
}

if (!run('build', process.execPath, ['scripts/build.mjs'])) stopAt('build');
if (!run('typecheck', npm, ['run', 'typecheck'])) stopAt('typecheck');
if (!run('lint', npm, ['run', 'lint'])) stopAt('lint');
if (!runVitest('unit and integration tests', [])) summarize(false);

if (fs.existsSync(path.join(root, 'vitest.e2e.config.ts'))) {
  summarize(runVitest('e2e tests', ['--config', 'vitest.e2e.config.ts']));
} else {
  const bar = '!'.repeat(72);
  process.stdout.write(
    `\n${bar}\n!! E2E SKIPPED: vitest.e2e.config.ts does not exist yet.\n!! The browser/Electron specs did not run; this must be fixed before a release.\n${bar}\n`,
  );
  summarize(true);
}
