import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnTracked, type TrackedChild } from './child-process.js';
import { freePort } from './sshd.js';
import { waitUntil } from './waiting.js';

/**
 * A single-node Slurm cluster on this machine for one test file: munged with
 * a throwaway key and its own socket, slurmctld and slurmd in the foreground,
 * a minimal slurm.conf in a temp folder (node = this host, free ports, no
 * accounting database), so it starts in seconds. Clients find it through
 * `SLURM_CONF` (`env` below). Started in `beforeAll`, stopped in `afterAll`
 * after every job of it has ended; tests skip with the reason when the
 * binaries are missing (`.ci/run` installs slurm-wlm and munge).
 */

const run = promisify(execFile);
const BINARIES = ['/usr/sbin/munged', '/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/sbatch', '/usr/bin/squeue', '/usr/bin/scontrol', '/usr/bin/scancel'];

export interface TestSlurmCluster {
  /** The folder holding slurm.conf; job scripts and outputs may live under it too (shared by the one node). */
  readonly dir: string;
  readonly confPath: string;
  /** What a Slurm client needs in its environment to talk to this cluster. */
  readonly env: Readonly<Record<string, string>>;
  readonly partition: string;
  /** Runs a Slurm client command against this cluster; its stdout. */
  client(command: string, args: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Why the cluster cannot run here, or null. */
export function slurmUnavailable(): string | null {
  for (const binary of BINARIES) {
    if (!fs.existsSync(binary)) return `${binary} is not installed (slurm-wlm and munge; .ci/run installs them)`;
  }
  // slurmd starts each job's step as the job's user, which takes root.
  if (process.getuid?.() !== 0) return 'slurmd needs root to start jobs (CI runs as root)';
  return null;
}

export async function startSlurmCluster(dir: string): Promise<TestSlurmCluster> {
  const host = os.hostname();
  const user = os.userInfo().username;
  const mungeDir = path.join(dir, 'munge');
  fs.mkdirSync(mungeDir, { mode: 0o700 });
  // munged checks that its socket's folder is reachable by everyone (clients connect as any user).
  fs.chmodSync(mungeDir, 0o755);
  const key = path.join(mungeDir, 'munge.key');
  fs.writeFileSync(key, crypto.randomBytes(1024), { mode: 0o400 });
  const socket = path.join(mungeDir, 'munge.socket');
  for (const sub of ['state', 'spool']) fs.mkdirSync(path.join(dir, sub), { mode: 0o700 });
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
  const partition = 'debug';
  const confPath = path.join(dir, 'slurm.conf');
  fs.writeFileSync(
    confPath,
    [
      `ClusterName=wheelhouse${crypto.randomBytes(3).toString('hex')}`,
      `SlurmctldHost=${host}`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      `SlurmUser=${user}`,
      `SlurmdUser=${user}`,
      'AuthType=auth/munge',
      `AuthInfo=socket=${socket}`,
      'CredType=cred/munge',
      `StateSaveLocation=${path.join(dir, 'state')}`,
      `SlurmdSpoolDir=${path.join(dir, 'spool')}`,
      `SlurmctldPidFile=${path.join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${path.join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${path.join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${path.join(dir, 'slurmd.log')}`,
      // No cgroups: a container may have none to give.
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SchedulerType=sched/builtin',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU_Memory',
      'MpiDefault=none',
      'ReturnToService=2',
      'JobCompType=jobcomp/none',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      // Ended jobs stay visible to `scontrol show job` for the whole file (there is no sacct without a database).
      'MinJobAge=3600',
      `NodeName=${host} NodeAddr=127.0.0.1 CPUs=${os.availableParallelism()} RealMemory=1000 State=UNKNOWN`,
      `PartitionName=${partition} Nodes=ALL Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env = { SLURM_CONF: confPath };
  const daemonEnv = { ...process.env, ...env };
  const daemons: TrackedChild[] = [];
  const stopDaemons = async () => {
    for (const daemon of daemons.splice(0).reverse()) await daemon.stop('SIGTERM');
  };
  const client = async (command: string, args: readonly string[]) => (await run(command, [...args], { env: daemonEnv })).stdout;

  try {
    const munged = spawnTracked(
      '/usr/sbin/munged',
      ['-F', '--force', `--key-file=${key}`, `--socket=${socket}`, `--pid-file=${path.join(mungeDir, 'munged.pid')}`, `--log-file=${path.join(mungeDir, 'munged.log')}`, `--seed-file=${path.join(mungeDir, 'munged.seed')}`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    daemons.push(munged);
    await waitUntil(
      () => {
        if (munged.child.exitCode !== null) throw new Error(`munged did not start: ${munged.stderr()}`);
        return fs.existsSync(socket);
      },
      { what: 'munged to make its socket' },
    );
    const slurmctld = spawnTracked('/usr/sbin/slurmctld', ['-D', '-i'], { env: daemonEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    daemons.push(slurmctld);
    const slurmd = spawnTracked('/usr/sbin/slurmd', ['-D'], { env: daemonEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    daemons.push(slurmd);
    await waitUntil(
      async () => {
        for (const daemon of [slurmctld, slurmd]) {
          if (daemon.child.exitCode !== null) throw new Error(`a Slurm daemon did not start: ${daemon.stderr()}`);
        }
        try {
          const state = (await client('/usr/bin/sinfo', ['-h', '-o', '%T'])).trim();
          return state === 'idle' || state === 'mixed';
        } catch {
          return false; // slurmctld not listening yet
        }
      },
      { what: 'the Slurm node to be idle', intervalMs: 100 },
    );
  } catch (error) {
    await stopDaemons();
    throw error;
  }

  return {
    dir,
    confPath,
    env,
    partition,
    client,
    stop: async () => {
      // Nothing of a test is left running: every job is ended before the daemons go.
      await client('/usr/bin/scancel', ['-u', user]).catch(() => '');
      await waitUntil(async () => (await client('/usr/bin/squeue', ['-h', '-t', 'PENDING,RUNNING,SUSPENDED,COMPLETING', '-o', '%i'])).trim() === '', {
        what: 'every Slurm job to end',
        intervalMs: 100,
      });
      await stopDaemons();
    },
  };
}
