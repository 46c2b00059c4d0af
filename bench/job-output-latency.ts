/**
 * Output latency of a job by where it runs (`node --import tsx bench/job-output-latency.ts`):
 * the time from a line written by the command to the job's follower
 * reporting it (what becomes `job/output/delta` for a client), on this
 * computer (the local detached run, the baseline), over SSH on loopback and
 * on the single-node Slurm cluster — each remote place streamed (the
 * connection's log stream) and followed by looks alone (the fallback for a
 * host without Perl, the worst case), in the same run. Each line carries
 * the time it was written (`date +%s%N`); all run on this machine, so both
 * ends read the same clock. The servers are the tests' (remote-kit.ts).
 */
import path from 'node:path';
import type { DetachedEnvironment } from '../electron/exec/index.js';
import { LocalShell } from '../electron/exec/remote/remote-shell.js';
import { SlurmDetachedEnvironment } from '../electron/exec/remote/slurm-detached.js';
import { SshDetachedEnvironment } from '../electron/exec/remote/ssh-detached.js';
import { ProcessSupervisor } from '../electron/exec/supervisor.js';
import type { TempDirs } from '../test-support/temp-dir.js';
import { runBenchMain, withSlurmCluster, withSshd } from './remote-kit.js';
import { summarize } from './stats.js';

const LINES = 20;
const GAP_S = 0.3;
const COMMAND = `for i in $(seq 1 ${LINES}); do echo "t=$(date +%s%N)"; sleep ${GAP_S}; done`;

/** Each line's time from `echo` to the follower reporting it. */
async function latencies(environment: DetachedEnvironment, runId: string, cwd: string): Promise<number[]> {
  const handle = await environment.startDetached(environment.prepare(runId), { command: COMMAND, cwd });
  const samples: number[] = [];
  let carry = '';
  // Followers' timers do not keep a process alive (the app's never should); this bench must wait.
  const keepAlive = setInterval(() => undefined, 1000);
  await new Promise<void>((resolve) => {
    const attachment = environment.attach(handle, 0, (event) => {
      if (event.type === 'output') {
        const now = Date.now();
        const text = carry + event.data.toString('utf8');
        const lines = text.split('\n');
        carry = lines.pop() ?? '';
        for (const line of lines) {
          const match = /t=(\d+)/.exec(line);
          if (match) samples.push(now - Number(BigInt(match[1]!) / 1_000_000n));
        }
      } else if (event.type === 'end') {
        attachment.dispose();
        resolve();
      }
    });
  });
  clearInterval(keepAlive);
  environment.remove(handle);
  return samples;
}

export async function jobOutputLatencyBench({ temp }: { temp: TempDirs }): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = { what: `ms from a line written to the job's follower reporting it; ${LINES} lines ${GAP_S} s apart per place` };
  const root = temp.make('wheelhouse-bench-latency-');
  const supervisor = new ProcessSupervisor({ logDir: path.join(root, 'logs'), runsDir: path.join(root, 'runs') });
  report.local = summarize(await latencies(supervisor.detached, 'latency-local', root));
  report.ssh = await withSshd(temp, async (_sshd, connection) => {
    const ssh = (streamLogs: boolean) =>
      new SshDetachedEnvironment({ environmentId: 'bench', shell: connection, mirrorDir: path.join(root, `mirror-ssh-${streamLogs}`), remoteRunsDir: path.join(root, 'remote-runs'), streamLogs });
    return {
      streamed: summarize(await latencies(ssh(true), 'latency-ssh', root)),
      looksOnly: summarize(await latencies(ssh(false), 'latency-ssh-looks', root)),
    };
  });
  report.slurm = await withSlurmCluster(temp, async (cluster) => {
    const slurm = (streamLogs: boolean) =>
      new SlurmDetachedEnvironment({ environmentId: 'bench', shell: new LocalShell(), mirrorDir: path.join(root, `mirror-slurm-${streamLogs}`), remoteRunsDir: path.join(cluster.dir, 'runs'), schedulerEnv: cluster.env, streamLogs });
    return {
      streamed: summarize(await latencies(slurm(true), 'latency-slurm', cluster.dir)),
      looksOnly: summarize(await latencies(slurm(false), 'latency-slurm-looks', cluster.dir)),
    };
  });
  return report;
}

await runBenchMain(import.meta.url, 'jobOutputLatency', jobOutputLatencyBench);
