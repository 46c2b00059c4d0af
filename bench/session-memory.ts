/**
 * Peak RSS of the built app-server over one scripted session (the
 * differential test's `conformance` session: initialize, thread/start, a turn
 * with a command, reasoning and streamed text against the mock model, then
 * read, list, config and goal requests), beside Codex's app-server on the
 * same session when CODEX_BIN names its native binary. Peak is the kernel's
 * high-water mark (VmHWM), sampled until the session ends.
 *
 *   CODEX_BIN=… node --import tsx bench/session-memory.ts [--runs 3]
 *
 * `WHEELHOUSE_BASELINE_CLI=<other checkout>/bin/wheelhouse.mjs` adds another build's figures (e.g.
 * main's), taken in the same alternation.
 * `SESSION_BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` passes node flags to
 * Wheelhouse's server (to profile it, or to try V8 flags beside the launcher's own).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnTracked, type TrackedChild } from '../test-support/child-process.js';
import { stdioConnection } from '../test-support/codex-diff/connections.js';
import { runSession } from '../test-support/codex-diff/session-driver.js';
import { makeSessionFolders, MOCK_KEY, runFolders, serverEnvironment, writeSessionHome } from '../test-support/codex-diff/session-home.js';
import { CODEX_SESSIONS } from '../test-support/codex-diff/sessions.js';
import { TraceNormalizer } from '../test-support/codex-diff/trace-normalizer.js';
import { startMockModelServer } from '../test-support/mock-model/index.js';
import { cliBin, repoRoot } from '../test-support/paths.js';

export interface SessionMemory {
  readonly session: string;
  readonly runs: number;
  /** Median over runs of each server's peak RSS during the session. */
  readonly wheelhousePeakRssMb: number;
  readonly codexPeakRssMb: number | string;
  /** Wheelhouse ÷ Codex (the goal: at most 0.6). */
  readonly ratio: number | null;
  /** Medians of the split of each run's largest sample (the peak's make-up). */
  readonly wheelhouseAtLargestSample: { anonymousMb: number; fileMb: number };
  readonly codexAtLargestSample: { anonymousMb: number; fileMb: number } | null;
  /** The same for WHEELHOUSE_BASELINE_CLI's build, when set. */
  readonly baseline?: { readonly cli: string; readonly peakRssMb: number; readonly ratio: number | null; readonly atLargestSample: { anonymousMb: number; fileMb: number } };
}

/** The kernel's memory figures of a process, in MB (all 0 once it has exited). */
function memoryOf(pid: number | undefined): { highWater: number; rss: number; anonymous: number; file: number } {
  const none = { highWater: 0, rss: 0, anonymous: 0, file: 0 };
  if (pid === undefined) return none;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
    return { highWater: field('VmHWM'), rss: field('VmRSS'), anonymous: field('RssAnon'), file: field('RssFile') };
  } catch {
    return none; // exited
  }
}

const SERVER_NODE_ARGS = (process.env['SESSION_BENCH_SERVER_NODE_ARGS'] ?? '').split(' ').filter(Boolean);

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

interface Peak {
  /** VmHWM: the most resident memory the process ever had. */
  readonly peak: number;
  /** The largest sample's split: memory of the process's own (heap, stacks) and pages of mapped files (binary, addons, SQLite's mmap). */
  readonly anonymous: number;
  readonly file: number;
}

/** Runs the session once against the server `spawn` starts; returns its peak RSS in MB. */
async function peakOver(spawn: (cwd: string, env: NodeJS.ProcessEnv, home: string) => TrackedChild, codexHome: boolean): Promise<Peak> {
  const session = CODEX_SESSIONS.find((candidate) => candidate.name === 'conformance');
  if (!session) throw new Error('the conformance session is gone from test-support/codex-diff/sessions.ts');
  // Outside the OS temp folder: Codex refuses to set up its sandbox helper there.
  const runs = path.join(os.homedir(), '.cache', 'wheelhouse', 'bench-session-memory');
  fs.mkdirSync(runs, { recursive: true });
  const root = fs.mkdtempSync(path.join(runs, 'run-'));
  const folders = makeSessionFolders(root);
  const mock = await startMockModelServer({ apiKey: MOCK_KEY });
  let peak = 0;
  let largest = memoryOf(undefined);
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    writeSessionHome(folders.home, session.home, mock.url);
    const env = { ...serverEnvironment(folders), ...(codexHome ? { CODEX_HOME: folders.home, RUST_LOG: 'error' } : { WHEELHOUSE_HOME: folders.home }) };
    await runSession({
      session,
      mock,
      normalizer: new TraceNormalizer(runFolders(root, folders), os.hostname()),
      connect: () => {
        const server = spawn(folders.cwd, env, folders.home);
        sampler = setInterval(() => {
          const now = memoryOf(server.child.pid);
          peak = Math.max(peak, now.highWater);
          if (now.rss > largest.rss) largest = now;
        }, 20);
        return Promise.resolve(stdioConnection(server));
      },
    });
  } finally {
    if (sampler) clearInterval(sampler);
    await mock.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  const tenth = (mb: number) => Math.round(mb * 10) / 10;
  return { peak: tenth(peak), anonymous: tenth(largest.anonymous), file: tenth(largest.file) };
}

export async function sessionMemory(options: { runs: number }): Promise<SessionMemory> {
  const codexBin = process.env['CODEX_BIN'];
  const wheelhouse: Peak[] = [];
  const codex: Peak[] = [];
  const baselineCli = process.env['WHEELHOUSE_BASELINE_CLI'];
  const baseline: Peak[] = [];
  const wheelhouseOf = (cli: string) => (_cwd: string, env: NodeJS.ProcessEnv, home: string) =>
    spawnTracked(process.execPath, [...SERVER_NODE_ARGS, cli, 'app-server', '--home', home], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'], env });
  // Alternating, so all meet the same load.
  for (let run = 0; run < options.runs; run++) {
    wheelhouse.push(await peakOver(wheelhouseOf(cliBin), false));
    if (baselineCli) baseline.push(await peakOver(wheelhouseOf(baselineCli), false));
    if (codexBin) codex.push(await peakOver((cwd, env) => spawnTracked(codexBin, ['app-server'], { cwd, stdio: ['pipe', 'pipe', 'pipe'], env }), true));
  }
  const ours = median(wheelhouse.map((run) => run.peak));
  const theirs = codex.length > 0 ? median(codex.map((run) => run.peak)) : null;
  const split = (runs: readonly Peak[]) => ({ anonymousMb: median(runs.map((run) => run.anonymous)), fileMb: median(runs.map((run) => run.file)) });
  return {
    session: 'conformance (initialize, thread/start, a turn with a command, 14 requests after it)',
    runs: options.runs,
    wheelhousePeakRssMb: ours,
    codexPeakRssMb: theirs ?? 'not measured (set CODEX_BIN to the native codex binary)',
    ratio: theirs ? Math.round((ours / theirs) * 100) / 100 : null,
    wheelhouseAtLargestSample: split(wheelhouse),
    codexAtLargestSample: codex.length > 0 ? split(codex) : null,
    ...(baselineCli
      ? {
          baseline: {
            cli: baselineCli,
            peakRssMb: median(baseline.map((run) => run.peak)),
            ratio: theirs ? Math.round((median(baseline.map((run) => run.peak)) / theirs) * 100) / 100 : null,
            atLargestSample: split(baseline),
          },
        }
      : {}),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runsAt = process.argv.indexOf('--runs');
  const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 3;
  const load = os.loadavg()[0]!.toFixed(2);
  const result = await sessionMemory({ runs });
  process.stdout.write(`${JSON.stringify({ loadAverage: load, loadAverageAtEnd: os.loadavg()[0]!.toFixed(2), ...result }, null, 2)}\n`);
}
