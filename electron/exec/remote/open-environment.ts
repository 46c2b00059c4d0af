import type { DetachedEnvironment } from '../detached/detached-run.js';
import { LocalShell, type RemoteShell } from './remote-shell.js';
import { SlurmDetachedEnvironment, type SlurmResources } from './slurm-detached.js';
import { SshConnection, type SshConnectionOptions } from './ssh-connection.js';
import { SshDetachedEnvironment } from './ssh-detached.js';

/**
 * Builds what an environment of Settings → Machines runs on: an SSH
 * connection (or this machine's shell for a local Slurm cluster) and the
 * DetachedEnvironment its jobs use. Only electron/exec starts processes and
 * opens connections; the runtime holds what this returns.
 */

export interface RemoteEnvironmentConfig {
  readonly environmentId: string;
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
  close(): void;
}

export function openRemoteEnvironment(config: RemoteEnvironmentConfig, parts: RemoteEnvironmentParts): OpenedEnvironment {
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
  const detached: DetachedEnvironment =
    config.kind === 'ssh'
      ? new SshDetachedEnvironment({ environmentId: config.environmentId, shell, mirrorDir: parts.mirrorDir })
      : new SlurmDetachedEnvironment({ environmentId: config.environmentId, shell, mirrorDir: parts.mirrorDir, ...(config.slurm ?? {}) });
  return { detached, shell, connection, close: () => connection?.close() };
}
