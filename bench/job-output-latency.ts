/**
 * Output latency of a job by where it runs (`node --import tsx bench/job-output-latency.ts`):
 * the time from a line written by the command to the job's follower
 * reporting it (what becomes `job/output/delta` for a client), on this
 * computer (the local detached run, the baseline), over SSH on loopback and
 * on the single-node Slurm cluster, in the same run. Each line carries the
 * time it was written (`date +%s%N`); all three run on this machine, so
 * both ends read the same clock. The servers are the tests'.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DetachedEnvironment } from '../electron/exec/index.js';
import { LocalShell } from '../electron/exec/remote/remote-shell.js';
import { SlurmDetachedEnvironment } from '../electron/exec/remote/slurm-detached.js';
import { SshConnection } from '../electron/exec/remote/ssh-connection.js';
import { SshDetachedEnvironment } from '../electron/exec/remote/ssh-detached.js';
import { ProcessSupervisor } from '../electron/exec/supervisor.js';
import { slurmUnavailable, startSlurmCluster } from '../test-support/slurm-cluster.js';
import { sshdUnavailable, startSshd } from '../test-support/sshd.js';
import { TempDirs } from '../test-support/temp-dir.js';
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
  const noSshd = sshdUnavailable();
  if (noSshd) report.ssh = { skipped: noSshd };
  else {
    const sshd = await startSshd(temp.make('wheelhouse-bench-sshd-'));
    const connection = new SshConnection({ ...sshd, privateKey: async () => sshd.privateKey, pinnedFingerprint: sshd.hostKeyFingerprint(), knownHostsFiles: [], askHostKey: async () => false });
    try {
      const ssh = new SshDetachedEnvironment({ environmentId: 'bench', shell: connection, mirrorDir: path.join(root, 'mirror-ssh'), remoteRunsDir: path.join(root, 'remote-runs') });
      report.ssh = summarize(await latencies(ssh, 'latency-ssh', root));
    } finally {
      connection.close();
      await sshd.stop();
    }
  }
  const noSlurm = slurmUnavailable();
  if (noSlurm) report.slurm = { skipped: noSlurm };
  else {
    const cluster = await startSlurmCluster(temp.make('wheelhouse-bench-slurm-'));
    try {
      const slurm = new SlurmDetachedEnvironment({ environmentId: 'bench', shell: new LocalShell(), mirrorDir: path.join(root, 'mirror-slurm'), remoteRunsDir: path.join(cluster.dir, 'runs'), schedulerEnv: cluster.env });
      report.slurm = summarize(await latencies(slurm, 'latency-slurm', cluster.dir));
    } finally {
      await cluster.stop();
    }
  }
  return report;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const temp = new TempDirs();
  try {
    const loadAverage1mAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
    process.stdout.write(`${JSON.stringify({ loadAverage1mAtStart, jobOutputLatency: await jobOutputLatencyBench({ temp }) }, null, 2)}\n`);
  } finally {
    temp.cleanup();
  }
}
