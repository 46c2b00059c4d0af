/**
 * What running elsewhere costs (`node --import tsx bench/remote-environments.ts`):
 * one short command over SSH on loopback — in the connection's long-lived
 * command shell, and on an exec channel of its own (what every command paid
 * before, and still pays when both shells are busy: the worst case) —
 * against the same command run here (median of 50, same run), and, where
 * slurm-wlm is installed, from a submission to the job running against
 * `sbatch` alone on an idle cluster; and one apply_patch of a small file over
 * SFTP against the same patch here (median of 50, same run). The servers are
 * the tests' (remote-kit.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalShell } from '../electron/exec/remote/remote-shell.js';
import { SlurmDetachedEnvironment } from '../electron/exec/remote/slurm-detached.js';
import { SftpFiles } from '../electron/exec/remote/sftp-files.js';
import { LocalFiles } from '../electron/files/local-files.js';
import type { WorkspaceFiles } from '../electron/files/workspace-files.js';
import { applyPatch } from '../electron/runtime/patch/apply-patch.js';
import { follow } from '../test-support/detached-runs.js';
import type { TempDirs } from '../test-support/temp-dir.js';
import { waitUntil } from '../test-support/waiting.js';
import { runBenchMain, timeEach, withSlurmCluster, withSshd } from './remote-kit.js';
import { ms, summarize } from './stats.js';

const COMMANDS = 50;

/** apply_patch of one 40-line file, flipping a line each time (checked, staged, renamed), on `files`. */
async function patchSamples(files: WorkspaceFiles, folder: string) {
  fs.writeFileSync(path.join(folder, 'a.txt'), `${Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n')}\nflag off\n`);
  let on = false;
  return summarize(
    await timeEach(COMMANDS, async () => {
      const [from, to] = on ? ['on', 'off'] : ['off', 'on'];
      on = !on;
      await applyPatch(files, folder, `*** Begin Patch\n*** Update File: a.txt\n@@\n-flag ${from}\n+flag ${to}\n*** End Patch\n`);
    }),
  );
}

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
    const patchHere = await patchSamples(new LocalFiles(), temp.make('wheelhouse-bench-patch-here-'));
    const patchOverSftp = await patchSamples(new SftpFiles(connection, 'bench'), temp.make('wheelhouse-bench-patch-there-'));
    return {
      connectMs: ms(connectMs),
      commandLocal: here,
      commandOverSsh: overSsh,
      commandOverSshOwnChannel: ownChannel,
      overheadMedianMs: ms(overSsh.medianMs - here.medianMs),
      ownChannelOverheadMedianMs: ms(ownChannel.medianMs - here.medianMs),
      patchLocal: patchHere,
      patchOverSftp,
      patchOverheadMedianMs: ms(patchOverSftp.medianMs - patchHere.medianMs),
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
