import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cliBin, repoRoot } from '../test-support/paths.js';
import { ms, quantile } from './stats.js';

/** Spawn → first response, over fresh processes. */
export interface StartupSummary {
  readonly processes: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly minMs: number;
  readonly maxMs: number;
  /**
   * CPU time (user + system) the process had used when it answered, median;
   * unlike wall time it barely moves when other work shares the machine.
   * Linux only (/proc), in 10 ms ticks.
   */
  readonly cpuMedianMs: number | null;
}

interface StartupSample {
  readonly wallMs: number;
  readonly cpuMs: number | null;
}

/** User + system CPU time of a running process from /proc (clock ticks of 10 ms), or null off Linux. */
export function cpuTimeMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name start at field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

// The same request a Codex client sends first; both servers accept it.
const INITIALIZE = `${JSON.stringify({
  id: 1,
  method: 'initialize',
  params: { clientInfo: { name: 'wheelhouse-bench', title: null, version: '0.0.0' } },
})}\n`;

/**
 * Time from spawn until the first line of stdout, the initialize request
 * written right after spawn (as a client does). Includes process start,
 * loading the program and answering; the process is then closed and awaited
 * before the next one starts, so runs do not overlap.
 */
async function spawnToFirstLine(command: string, args: readonly string[], env: NodeJS.ProcessEnv, input: string): Promise<StartupSample> {
  const start = performance.now();
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdin.write(input);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const sample = await new Promise<StartupSample>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes('\n')) resolve({ wallMs: performance.now() - start, cpuMs: cpuTimeMs(child.pid) });
    });
    void exited.then((code) => reject(new Error(`${command} exited (${String(code)}) before answering: ${stderr.slice(0, 500)}`)));
  });
  child.stdin.end();
  // Codex keeps running after stdin closes in some versions; do not wait on it.
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  return sample;
}

function summarise(samples: readonly StartupSample[]): StartupSummary {
  const sorted = samples.map((s) => s.wallMs).sort((a, b) => a - b);
  const cpu = samples.map((s) => s.cpuMs).filter((c): c is number => c !== null).sort((a, b) => a - b);
  return {
    processes: sorted.length,
    medianMs: ms(quantile(sorted, 0.5)),
    p90Ms: ms(quantile(sorted, 0.9)),
    minMs: ms(sorted[0]!),
    maxMs: ms(sorted[sorted.length - 1]!),
    cpuMedianMs: cpu.length === samples.length ? quantile(cpu, 0.5) : null,
  };
}

/**
 * Times each series over fresh processes, taking turns (one process of each
 * per round) so that load from other work on the machine falls on all of them
 * alike. One warm-up round first (the OS file cache, V8's compile cache).
 */
async function timeInTurns(runs: number, series: Record<string, () => Promise<StartupSample>>): Promise<Record<string, StartupSummary>> {
  const names = Object.keys(series);
  for (const name of names) await series[name]!();
  const samples = new Map<string, StartupSample[]>(names.map((name) => [name, []]));
  for (let i = 0; i < runs; i++) for (const name of names) samples.get(name)!.push(await series[name]!());
  return Object.fromEntries(names.map((name) => [name, summarise(samples.get(name)!)]));
}

/**
 * The Codex executable to compare with, if any (never needed, never in CI):
 * $CODEX_BIN, else `codex` on PATH. npm's `codex` on PATH is a Node launcher
 * that starts the native binary, so it measures two process starts; point
 * CODEX_BIN at the native binary (in @openai/codex-<platform>/vendor/) to
 * compare with what Codex clients spawn.
 */
function findCodex(): string | undefined {
  const fromEnv = process.env['CODEX_BIN'];
  if (fromEnv) return fromEnv;
  const found = spawnSync(process.platform === 'win32' ? 'where' : 'which', ['codex'], { encoding: 'utf8' });
  const first = found.status === 0 ? found.stdout.split(/\r?\n/)[0]?.trim() : undefined;
  return first ? first : undefined;
}

/**
 * Codex as `npm i @openai/codex` installs it: `codex` is `@openai/codex/bin/codex.js`, a Node
 * launcher that spawns the native binary. $CODEX_NPM_BIN names the launcher; else it is found
 * in the node_modules tree CODEX_BIN points into, if any.
 */
function findCodexNpmLauncher(codexBin: string | undefined): string | undefined {
  const fromEnv = process.env['CODEX_NPM_BIN'];
  if (fromEnv) return fromEnv;
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = codexBin?.lastIndexOf(marker) ?? -1;
  if (codexBin === undefined || at < 0) return undefined;
  const launcher = path.join(codexBin.slice(0, at + marker.length), '@openai', 'codex', 'bin', 'codex.js');
  return fs.existsSync(launcher) ? launcher : undefined;
}

/** Wheelhouse's median (`ours`, by default with an existing home) over another series' median, when both were measured. */
function ratioTo(times: Record<string, StartupSummary>, other: string, ours = 'wheelhouseExistingHome'): number | null {
  const theirs = times[other]?.medianMs;
  const mine = times[ours]?.medianMs;
  return theirs && mine ? Math.round((mine / theirs) * 100) / 100 : null;
}

/** Spawn → `initialize` response of `wheelhouse app-server`, and of `codex app-server` when installed. */
export async function startupTimes(options: { readonly runs: number }): Promise<Record<string, unknown>> {
  const homes = fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-bench-startup-'));
  try {
    const wheelhouse = (home: string) => () =>
      spawnToFirstLine(process.execPath, [cliBin, 'app-server', '--home', home], process.env, INITIALIZE);
    let fresh = 0;
    const series: Record<string, () => Promise<StartupSample>> = {
      wheelhouseExistingHome: wheelhouse(path.join(homes, 'existing')),
      wheelhouseNewHome: () => wheelhouse(path.join(homes, `new-${fresh++}`))(),
      // The floor no Node program can go under in this environment (see NODE_EXTRA_CA_CERTS below).
      nodeEmptyProgram: () => spawnToFirstLine(process.execPath, ['-e', 'process.stdout.write("\\n")'], process.env, ''),
    };
    // Node 20 reads NODE_EXTRA_CA_CERTS (and its own root certificates) as it starts, before any
    // JavaScript runs: every Node program pays for it, the native Codex binary does not. Where it is
    // set, the same series without it show what a machine without it sees.
    const withoutExtraCaCerts = process.env['NODE_EXTRA_CA_CERTS'] === undefined ? null : { ...process.env, NODE_EXTRA_CA_CERTS: undefined };
    if (withoutExtraCaCerts) {
      series['wheelhouseWithoutExtraCaCerts'] = () =>
        spawnToFirstLine(process.execPath, [cliBin, 'app-server', '--home', path.join(homes, 'existing-no-extra-ca')], withoutExtraCaCerts, INITIALIZE);
      series['nodeEmptyProgramWithoutExtraCaCerts'] = () =>
        spawnToFirstLine(process.execPath, ['-e', 'process.stdout.write("\\n")'], withoutExtraCaCerts, '');
    }
    // Another build of the CLI (e.g. main's) to compare with, taken in the same turns.
    const baselineCli = process.env['WHEELHOUSE_BASELINE_CLI'];
    if (baselineCli) {
      let baselineFresh = 0;
      series['baselineExistingHome'] = () =>
        spawnToFirstLine(process.execPath, [baselineCli, 'app-server', '--home', path.join(homes, 'baseline')], process.env, INITIALIZE);
      series['baselineNewHome'] = () =>
        spawnToFirstLine(process.execPath, [baselineCli, 'app-server', '--home', path.join(homes, `baseline-new-${baselineFresh++}`)], process.env, INITIALIZE);
    }
    const codexPath = findCodex();
    if (codexPath) {
      const codexHome = path.join(homes, 'codex');
      fs.mkdirSync(codexHome);
      const env = { ...process.env, CODEX_HOME: codexHome };
      series['codex'] = () => spawnToFirstLine(codexPath, ['app-server'], env, INITIALIZE);
    }
    const codexNpmLauncher = findCodexNpmLauncher(codexPath);
    if (codexNpmLauncher) {
      const codexHome = path.join(homes, 'codex-npm');
      fs.mkdirSync(codexHome);
      const env = { ...process.env, CODEX_HOME: codexHome };
      series['codexNpm'] = () => spawnToFirstLine(process.execPath, [codexNpmLauncher, 'app-server'], env, INITIALIZE);
    }
    const times = await timeInTurns(options.runs, series);
    return {
      includes:
        'spawn -> initialize response line on stdout: process start, loading the program, taking the home lock and answering; series taken in turns',
      loadAverageAtEnd: os.loadavg().map((load) => Math.round(load * 10) / 10),
      ...(withoutExtraCaCerts
        ? { nodeExtraCaCerts: `set (${process.env['NODE_EXTRA_CA_CERTS']}): Node reads it as it starts; the *WithoutExtraCaCerts series run without it` }
        : {}),
      ...times,
      codex: times['codex'] ?? 'not installed (no CODEX_BIN, no `codex` on PATH)',
      ...(codexPath ? { codexBinary: codexPath } : {}),
      codexNpm: times['codexNpm'] ?? 'not measured (no CODEX_NPM_BIN, and CODEX_BIN is not in a node_modules tree holding @openai/codex)',
      ...(codexNpmLauncher
        ? { codexNpmLauncher, codexNpmCpuNote: "the launcher's own CPU only: its child, the native binary, is not counted" }
        : {}),
      // Wall-time medians, Wheelhouse (existing home) over each; the native binary is the stricter comparison.
      ratios: {
        wheelhouseToCodexNative: ratioTo(times, 'codex'),
        wheelhouseToCodexNpm: ratioTo(times, 'codexNpm'),
        wheelhouseToNodeEmptyProgram: ratioTo(times, 'nodeEmptyProgram'),
        ...(withoutExtraCaCerts
          ? {
              wheelhouseWithoutExtraCaCertsToCodexNative: ratioTo(times, 'codex', 'wheelhouseWithoutExtraCaCerts'),
              wheelhouseWithoutExtraCaCertsToNodeEmptyProgram: ratioTo(times, 'nodeEmptyProgramWithoutExtraCaCerts', 'wheelhouseWithoutExtraCaCerts'),
            }
          : {}),
        ...(baselineCli ? { wheelhouseToBaseline: ratioTo(times, 'baselineExistingHome') } : {}),
      },
    };
  } finally {
    fs.rmSync(homes, { recursive: true, force: true });
  }
}

/** Sizes of the built renderer: what the first screen loads vs chunks loaded on demand. */
export function rendererBundleSizes(): Record<string, unknown> | string {
  const root = path.join(repoRoot, 'dist', 'renderer');
  const indexHtml = path.join(root, 'index.html');
  if (!fs.existsSync(indexHtml)) return 'renderer not built (npm run build)';
  const html = fs.readFileSync(indexHtml, 'utf8');
  const initialFiles = new Set([...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!));
  const assets = fs.readdirSync(path.join(root, 'assets')).filter((name) => /\.(js|css)$/.test(name));
  const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;
  const size = (name: string) => fs.statSync(path.join(root, 'assets', name)).size;
  const initial = assets.filter((name) => initialFiles.has(`assets/${name}`));
  const lazy = assets.filter((name) => !initialFiles.has(`assets/${name}`) && name.endsWith('.js'));
  const largestLazy = [...lazy].sort((a, b) => size(b) - size(a)).slice(0, 4);
  return {
    includes: 'minified bytes on disk (not gzipped); initial = what index.html loads',
    initialJsKb: kb(initial.filter((n) => n.endsWith('.js')).reduce((sum, n) => sum + size(n), 0)),
    initialCssKb: kb(initial.filter((n) => n.endsWith('.css')).reduce((sum, n) => sum + size(n), 0)),
    lazyJsChunks: lazy.length,
    lazyJsKb: kb(lazy.reduce((sum, n) => sum + size(n), 0)),
    largestLazyChunks: Object.fromEntries(largestLazy.map((n) => [n.replace(/-[\w-]{8}\.js$/, ''), kb(size(n))])),
  };
}
