/**
 * What the remote benches share (remote-environments.ts, job-output-latency.ts):
 * the tests' servers started for a bench and stopped after it (or the reason
 * they cannot run here, printed instead of figures), an SSH connection to
 * the test sshd, timing a step many times, and the `node --import tsx
 * bench/<name>.ts` entry that prints one JSON document with the load average.
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { SshConnection } from '../electron/exec/remote/ssh-connection.js';
import { slurmUnavailable, startSlurmCluster, type TestSlurmCluster } from '../test-support/slurm-cluster.js';
import { pinnedConnection, sshdUnavailable, startSshd, type TestSshd } from '../test-support/sshd.js';
import { TempDirs } from '../test-support/temp-dir.js';

export type Skipped = { readonly skipped: string };

/** Runs `measure` against the test sshd and a connection to it (pinned host key, the test key); both are closed after. */
export async function withSshd<T>(temp: TempDirs, measure: (sshd: TestSshd, connection: SshConnection) => Promise<T>): Promise<T | Skipped> {
  const unavailable = sshdUnavailable();
  if (unavailable) return { skipped: unavailable };
  const sshd = await startSshd(temp.make('wheelhouse-bench-sshd-'));
  const connection = pinnedConnection(sshd);
  try {
    return await measure(sshd, connection);
  } finally {
    connection.close();
    await sshd.stop();
  }
}

/** Runs `measure` on the tests' single-node Slurm cluster, stopped after. */
export async function withSlurmCluster<T>(temp: TempDirs, measure: (cluster: TestSlurmCluster) => Promise<T>): Promise<T | Skipped> {
  const unavailable = slurmUnavailable();
  if (unavailable) return { skipped: unavailable };
  const cluster = await startSlurmCluster(temp.make('wheelhouse-bench-slurm-'));
  try {
    return await measure(cluster);
  } finally {
    await cluster.stop();
  }
}

/** Milliseconds each of `count` runs of `step` took, one after another. */
export async function timeEach(count: number, step: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await step();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** When `moduleUrl` is the script node was started with: runs the bench and prints `{ loadAverage1mAtStart, [name]: figures }`. */
export async function runBenchMain(moduleUrl: string, name: string, bench: (parts: { temp: TempDirs }) => Promise<unknown>): Promise<void> {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const temp = new TempDirs();
  try {
    const loadAverage1mAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
    process.stdout.write(`${JSON.stringify({ loadAverage1mAtStart, [name]: await bench({ temp }) }, null, 2)}\n`);
  } finally {
    temp.cleanup();
  }
}
