/**
 * What running elsewhere costs (`node --import tsx bench/remote-environments.ts`):
 * one short command over SSH on loopback — in the connection's long-lived
 * command shell, and on an exec channel of its own (what every command paid
 * before, and still pays when both shells are busy: the worst case) —
 * against the same command run here (median of 50, same run), and, where
 * slurm-wlm is installed, from a submission to the job running against
 * `sbatch` alone on an idle cluster. The servers are the tests' (remote-kit.ts).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalShell } from '../electron/exec/remote/remote-shell.js';
import { SlurmDetachedEnvironment } from '../electron/exec/remote/slurm-detached.js';
import { follow } from '../test-support/detached-runs.js';
import type { TempDirs } from '../test-support/temp-dir.js';
import { waitUntil } from '../test-support/waiting.js';
import { runBenchMain, timeEach, withSlurmCluster, withSshd } from './remote-kit.js';
import { ms, summarize } from './stats.js';

const COMMANDS = 50;

export async function remoteEnvironmentsBench({ temp }: { temp: TempDirs }): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = {};
  report.ssh = await withSshd(temp, async (_sshd, connection) => {
    const connectStarted = performance.now();
    await connection.connect();
    const connectMs = performance.now() - connectStarted;
    const local = new LocalShell();
    const here = summarize(await timeEach(COMMANDS, () => local.exec('echo hi')));
    const overSsh = summarize(await timeEach(COMMANDS, () => connection.exec('echo hi')));
    // Input on stdin gives a command an exec channel of its own.
    const ownChannel = summarize(await timeEach(COMMANDS, () => connection.exec('echo hi', '')));
    return {
      connectMs: ms(connectMs),
      commandLocal: here,
      commandOverSsh: overSsh,
      commandOverSshOwnChannel: ownChannel,
      overheadMedianMs: ms(overSsh.medianMs - here.medianMs),
      ownChannelOverheadMedianMs: ms(ownChannel.medianMs - here.medianMs),
    };
  });
  report.slurm = await withSlurmCluster(temp, async (cluster) => {
    const running = (id: string) =>
      waitUntil(async () => /JobState=(RUNNING|COMPLETED)/.test(await cluster.client('/usr/bin/scontrol', ['show', 'job', '-o', id])), { what: `job ${id} running`, intervalMs: 20 });
    const sbatchStarted = performance.now();
    const id = (await cluster.client('/usr/bin/sbatch', ['--parsable', '-o', '/dev/null', '--wrap', 'true'])).trim();
    await running(id);
    const sbatchToRunningMs = performance.now() - sbatchStarted;
    const env = new SlurmDetachedEnvironment({ environmentId: 'bench', shell: new LocalShell(), mirrorDir: temp.make('wheelhouse-bench-mirror-'), remoteRunsDir: path.join(cluster.dir, 'runs'), schedulerEnv: cluster.env, pollMs: 100 });
    const jobStarted = performance.now();
    const handle = await env.startDetached(env.prepare('bench-1'), { command: 'echo done', cwd: cluster.dir });
    await running(String(handle.pid));
    const jobToRunningMs = performance.now() - jobStarted;
    const run = follow(env, handle);
    await run.ended;
    const jobToOutputMs = performance.now() - jobStarted;
    return { sbatchToRunningMs: ms(sbatchToRunningMs), jobToRunningMs: ms(jobToRunningMs), jobToEndFollowedMs: ms(jobToOutputMs) };
  });
  return report;
}

await runBenchMain(import.meta.url, 'remoteEnvironments', remoteEnvironmentsBench);
