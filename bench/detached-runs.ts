/**
 * What running a job detached costs (`node --import tsx bench/detached-runs.ts` runs it alone):
 * - memory of the wrapper of each of 20 idle runs (`sh run.sh` + its pipeline shell, `cat`,
 *   `script`, `sh command.sh`; the command's own processes not counted), RSS and PSS, beside the
 *   alternative weighed in docs/job-runs.md, a small Node process owning the pty (node-pty), in the same run;
 * - start to first output byte, detached vs the in-process supervisor;
 * - a flood (`seq 1 3000000`) through the wrapper and its log to the follower vs the supervisor's pty.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ProcessSupervisor, type DetachedRunHandle, type ProcessEvent } from '../electron/exec/index.js';
import { readStat, signalTree, treeMembers } from '../electron/exec/process-tree.js';
import { follow } from '../test-support/detached-runs.js';
import { seqText } from '../test-support/exec.js';
import { waitUntil } from '../test-support/waiting.js';
import { repoRoot } from '../test-support/paths.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { ms, summarize } from './stats.js';

interface Memory {
  readonly rssKiB: number;
  readonly pssKiB: number;
}

function memoryOf(pid: number): Memory {
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return { rssKiB: field(rollup, 'Rss'), pssKiB: field(rollup, 'Pss') };
  } catch {
    return { rssKiB: 0, pssKiB: 0 };
  }
}

const sum = (list: readonly Memory[]): Memory => ({ rssKiB: list.reduce((a, m) => a + m.rssKiB, 0), pssKiB: list.reduce((a, m) => a + m.pssKiB, 0) });
const mean = (values: readonly number[]) => Math.round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length));
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The wrapper's own processes: every member of the run but the command's children (command.sh itself counts). */
function wrapperProcesses(handle: DetachedRunHandle): number[] {
  const leader = Number(fs.readFileSync(path.join(handle.runDir, 'command.pid'), 'utf8').trim());
  const command = new Set(treeMembers(leader).map((member) => member.pid));
  command.delete(leader);
  return treeMembers(handle.pid)
    .map((member) => member.pid)
    .filter((pid) => !command.has(pid) && readStat(pid) !== undefined);
}

/** A Node process owning a pty with `sleep` in it, writing its output to a file: the other design. */
async function nodePtyWrapperMemory(dir: string): Promise<Memory> {
  const script = `const pty = require(${JSON.stringify(path.join(repoRoot, 'node_modules', 'node-pty'))});
const fs = require('fs'); const log = fs.openSync(${JSON.stringify(path.join(dir, 'node-wrapper.log'))}, 'a');
const term = pty.spawn('sh', ['-c', 'echo up; exec sleep 300'], { cols: 120, rows: 30 });
term.onData((d) => fs.writeSync(log, d)); term.onExit(() => process.exit(0));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore', cwd: dir });
  try {
    await waitUntil(() => fs.existsSync(path.join(dir, 'node-wrapper.log')) && fs.readFileSync(path.join(dir, 'node-wrapper.log'), 'utf8').includes('up'), { what: 'the Node wrapper to start', timeoutMs: 20_000 });
    return memoryOf(child.pid!);
  } finally {
    signalTree(child.pid!, 'SIGKILL');
  }
}

export async function detachedRunsBench(options: { temp: TempDirs; runs?: number; rounds?: number }) {
  const { temp } = options;
  const runs = options.runs ?? 20;
  const rounds = options.rounds ?? 3;
  const root = temp.make('wheelhouse-bench-detached-');
  const supervisor = new ProcessSupervisor({ logDir: path.join(root, 'logs'), runsDir: path.join(root, 'runs'), detachedPollMs: 500 });
  const env = supervisor.detached;
  if (env.unsupported) return { skipped: env.unsupported };
  const cwd = temp.make('wheelhouse-bench-cwd-');
  // Following a run never keeps a host alive by itself (its timers are unref'd); this bench is the host.
  const keepAlive = setInterval(() => undefined, 1000);
  let sequence = 0;
  const start = (command: string) => env.startDetached(env.prepare(`bench-${++sequence}`), { command, cwd });

  // Memory of `runs` idle runs.
  const handles: DetachedRunHandle[] = [];
  try {
    for (let i = 0; i < runs; i += 1) handles.push(await start('echo up; exec sleep 300'));
    await waitUntil(() => handles.every((handle) => fs.existsSync(path.join(handle.runDir, 'command.pid')) && fs.readFileSync(handle.logPath, 'utf8').includes('up')), { what: 'every run up', timeoutMs: 60_000 });
    const perRun = handles.map((handle) => {
      const pids = wrapperProcesses(handle);
      return { processes: pids.length, ...sum(pids.map(memoryOf)) };
    });
    const baselines: Memory[] = [];
    for (let i = 0; i < 3; i += 1) baselines.push(await nodePtyWrapperMemory(temp.make('wheelhouse-bench-node-wrapper-')));
    const memory = {
      runs,
      processesPerRun: mean(perRun.map((run) => run.processes)),
      perRunRssKiB: mean(perRun.map((run) => run.rssKiB)),
      perRunPssKiB: mean(perRun.map((run) => run.pssKiB)),
      nodePtyWrapperRssKiB: mean(baselines.map((m) => m.rssKiB)),
      nodePtyWrapperPssKiB: mean(baselines.map((m) => m.pssKiB)),
    };

    // Start to first byte, alternating detached and supervised.
    const detachedStart: number[] = [];
    const supervisedStart: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const t0 = performance.now();
      const run = follow(env, await start('echo first'));
      await run.until(/first/);
      detachedStart.push(performance.now() - t0);
      await run.ended;
      const t1 = performance.now();
      const child = await supervisor.spawn({ command: 'echo first', cwd });
      await new Promise<void>((resolve) => child.subscribe((event: ProcessEvent) => event.type === 'output' && resolve()));
      supervisedStart.push(performance.now() - t1);
      await child.exited;
    }

    // A flood through each, alternating, checked byte for byte.
    const expected = seqText(3_000_000, true);
    const detachedFlood: { mbPerSecond: number; lossless: boolean }[] = [];
    const supervisedFlood: { mbPerSecond: number; lossless: boolean }[] = [];
    const rate = (bytes: number, elapsed: number) => Math.round((bytes / 1e6 / (elapsed / 1000)) * 100) / 100;
    for (let round = 0; round < rounds; round += 1) {
      const t0 = performance.now();
      const run = follow(env, await start('seq 1 3000000'));
      await run.ended;
      const text = run.text();
      detachedFlood.push({ mbPerSecond: rate(Buffer.byteLength(text), performance.now() - t0), lossless: sha256(text) === sha256(expected) });
      const t1 = performance.now();
      const child = await supervisor.spawn({ command: 'seq 1 3000000', cwd });
      const chunks: Buffer[] = [];
      child.subscribe((event) => event.type === 'output' && chunks.push(event.data));
      await child.exited;
      const bytes = Buffer.concat(chunks);
      supervisedFlood.push({ mbPerSecond: rate(bytes.length, performance.now() - t1), lossless: sha256(bytes) === sha256(expected) });
    }
    const median = (list: readonly { mbPerSecond: number }[]) => [...list].map((r) => r.mbPerSecond).sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    return {
      memory,
      startToFirstOutput: { detached: summarize(detachedStart), supervised: summarize(supervisedStart) },
      flood: {
        fixture: 'seq 1 3000000',
        detached: detachedFlood,
        supervised: supervisedFlood,
        ratioOfMedians: ms(median(detachedFlood) / median(supervisedFlood)),
      },
    };
  } finally {
    await Promise.all(handles.map((handle) => env.terminate(handle, 500)));
    await supervisor.dispose();
    clearInterval(keepAlive);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const temp = new TempDirs();
  try {
    const loadAverage1mAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
    process.stdout.write(`${JSON.stringify({ loadAverage1mAtStart, detachedRuns: await detachedRunsBench({ temp }) }, null, 2)}\n`);
  } finally {
    temp.cleanup();
  }
}
