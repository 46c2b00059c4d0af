/**
 * Checkpoints (electron/git/checkpoints.ts) on real git: the cost of one turn's checkpoint
 * (a snapshot through a scratch index, kept on a private ref) in a 10,000-file repository
 * beside a 100-file baseline, after one file changed; the disk each checkpoint adds to the
 * repository; and reading 500 changed files with their diffs (what thread/changes/read does).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Checkpoints } from '../electron/git/checkpoints.js';
import { GitRunner } from '../electron/git/git-runner.js';
import { ProcessSupervisor } from '../electron/exec/index.js';
import { TempDirs } from '../test-support/temp-dir.js';
import { ms, quantile } from './stats.js';

export interface CheckpointFigures {
  readonly files: number;
  readonly checkpointMedianMs: number;
  readonly checkpointP95Ms: number;
  /** Bytes the repository's object store grew by per checkpoint (one changed file each). */
  readonly diskPerCheckpointBytes: number;
}

export interface CheckpointBench {
  readonly baseline: CheckpointFigures;
  readonly large: CheckpointFigures;
  /** 500 files changed: every file with its counts and diff, read from two trees. */
  readonly read500ChangedFilesMs: number;
}

function repository(temp: TempDirs, files: number): string {
  const repo = temp.make('wheelhouse-bench-repo-');
  for (let i = 0; i < files; i++) {
    const dir = path.join(repo, `src/module-${Math.floor(i / 100)}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file-${i}.ts`), `export const value${i} = ${i};\n`.repeat(20));
  }
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  execFileSync('git', ['add', '.'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'files'], { cwd: repo });
  return repo;
}

function objectBytes(repo: string): number {
  let total = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else total += fs.statSync(full).size;
    }
  };
  walk(path.join(repo, '.git', 'objects'));
  return total;
}

async function measure(checkpoints: Checkpoints, repo: string, files: number, turns: number): Promise<CheckpointFigures> {
  const workspace = (await checkpoints.workspaceOf(repo))!;
  // Warm-up: the first snapshot after a fresh clone refreshes every stat entry.
  await checkpoints.snapshot(workspace);
  const before = objectBytes(repo);
  const samples: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    fs.appendFileSync(path.join(repo, 'src/module-0/file-0.ts'), `// turn ${turn}\n`);
    const started = performance.now();
    const tree = await checkpoints.snapshot(workspace);
    await checkpoints.save(workspace, `refs/wheelhouse/checkpoints/bench/turn-${turn}/before`, tree, 'bench');
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return {
    files,
    checkpointMedianMs: ms(quantile(samples, 0.5)),
    checkpointP95Ms: ms(quantile(samples, 0.95)),
    diskPerCheckpointBytes: Math.round((objectBytes(repo) - before) / turns),
  };
}

export async function checkpointBench(temp: TempDirs, turns = 15): Promise<CheckpointBench> {
  const supervisor = new ProcessSupervisor({ logDir: temp.make('wheelhouse-bench-logs-') });
  try {
    const checkpoints = new Checkpoints(new GitRunner(supervisor), temp.make('wheelhouse-bench-checkpoints-'));
    const baseline = await measure(checkpoints, repository(temp, 100), 100, turns);
    const largeRepo = repository(temp, 10_000);
    const large = await measure(checkpoints, largeRepo, 10_000, turns);

    const workspace = (await checkpoints.workspaceOf(largeRepo))!;
    const from = await checkpoints.snapshot(workspace);
    for (let i = 0; i < 500; i++) fs.appendFileSync(path.join(largeRepo, `src/module-${Math.floor(i / 100)}/file-${i}.ts`), 'export const more = 1;\n');
    const to = await checkpoints.snapshot(workspace);
    const started = performance.now();
    const changed = await checkpoints.changedFiles(workspace, from, to);
    const read500ChangedFilesMs = ms(performance.now() - started);
    if (changed.length !== 500) throw new Error(`expected 500 changed files, read ${changed.length}`);
    return { baseline, large, read500ChangedFilesMs };
  } finally {
    await supervisor.dispose();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const temp = new TempDirs();
  try {
    const loadAverage1mAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
    process.stdout.write(`${JSON.stringify({ loadAverage1mAtStart, checkpoints: await checkpointBench(temp) }, null, 2)}\n`);
  } finally {
    temp.cleanup();
  }
}
