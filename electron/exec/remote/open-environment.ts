import type { DetachedEnvironment } from '../detached/detached-run.js';
import { LocalShell, type RemoteShell } from './remote-shell.js';
import { SlurmDetachedEnvironment, type SlurmResources } from './slurm-detached.js';
import { SshConnection, type SshConnectionOptions } from './ssh-connection.js';
import { SshDetachedEnvironment } from './ssh-detached.js';
import { SftpFiles } from './sftp-files.js';
import { SshProcesses } from './ssh-processes.js';
import type { WorkspaceFiles } from '../../files/workspace-files.js';
import type { RemoteProcessHost } from '../types.js';
import type { ProcessSupervisor } from '../supervisor.js';

/**
 * Builds what an environment of Settings → Machines runs on: an SSH
 * connection (or this machine's shell for a local Slurm cluster) and the
 * DetachedEnvironment its jobs use. Only electron/exec starts processes and
 * opens connections; the runtime holds what this returns.
 */

export interface RemoteEnvironmentConfig {
  readonly environmentId: string;
  /** The machine's name for people (Settings → Machines). */
  readonly name: string;
  readonly kind: 'ssh' | 'slurm';
  /** Null: this machine (a Slurm cluster whose node it is, `slurm:///`). */
  readonly ssh: { readonly host: string; readonly port: number; readonly user: string; readonly pinnedFingerprint: string | null } | null;
  readonly slurm: SlurmResources | null;
}

export interface RemoteEnvironmentParts {
  /** This machine's folder for copies of the environment's logs. */
  readonly mirrorDir: string;
  readonly knownHostsFiles: readonly string[];
  readonly privateKey: () => Promise<string | null>;
  readonly agentSocket: string | null;
  readonly askHostKey: SshConnectionOptions['askHostKey'];
}

export interface OpenedEnvironment {
  readonly detached: DetachedEnvironment;
  readonly shell: RemoteShell;
  /** Null for this machine. */
  readonly connection: SshConnection | null;
  /** Where a thread's commands and terminals run on an SSH host; null for Slurm (its work is batch jobs). */
  readonly processes: RemoteProcessHost | null;
  /** A thread's files there (apply_patch and the file tools), over SFTP; null for Slurm. */
  readonly files: WorkspaceFiles | null;
  /** What new jobs on a Slurm machine ask for from now on (runs already submitted keep theirs); nothing for SSH. */
  setSlurmResources(resources: SlurmResources): void;
  close(): void;
}

export function openRemoteEnvironment(config: RemoteEnvironmentConfig, parts: RemoteEnvironmentParts, supervisor: ProcessSupervisor): OpenedEnvironment {
  const connection = config.ssh
    ? new SshConnection({
        ...config.ssh,
        privateKey: parts.privateKey,
        agentSocket: parts.agentSocket,
        knownHostsFiles: parts.knownHostsFiles,
        askHostKey: parts.askHostKey,
      })
    : null;
  const shell: RemoteShell = connection ?? new LocalShell();
  const slurm = config.kind === 'slurm' ? new SlurmDetachedEnvironment({ environmentId: config.environmentId, shell, mirrorDir: parts.mirrorDir, ...(config.slurm ?? {}) }) : null;
  const detached: DetachedEnvironment = slurm ?? new SshDetachedEnvironment({ environmentId: config.environmentId, shell, mirrorDir: parts.mirrorDir });
  const processes = config.kind === 'ssh' && connection ? new SshProcesses(config.environmentId, connection, supervisor) : null;
  const files = config.kind === 'ssh' && connection ? new SftpFiles(connection, config.name) : null;
  return {
    detached,
    shell,
    connection,
    processes,
    files,
    setSlurmResources: (resources) => slurm?.setResources(resources),
    close: () => connection?.close(),
  };
}
