import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  LOCAL_ENVIRONMENT_ID,
  RpcError,
  type EnvironmentAddParams,
  type EnvironmentStatusChangedNotification,
  type EnvironmentStatusKind,
  type EnvironmentSummary,
  type EnvironmentTestResult,
  type SlurmResourcesParams,
} from '../../../shared/protocol/index.js';
import type { DetachedEnvironment } from '../../exec/index.js';
import type { OpenedEnvironment, RemoteEnvironmentConfig, RemoteEnvironmentParts } from '../../exec/remote/open-environment.js';
import type { SshConnectionState } from '../../exec/remote/ssh-connection.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import { ensurePrivateDir } from '../../store/private-files.js';
import { parseEnvironmentUrl, type ParsedEnvironmentUrl } from './environment-url.js';

/**
 * The environments of Settings → Machines: what was added (kept in
 * `<home>/environments.json`, 0600, never a key), the connection of each
 * (opened on first use), and what jobs run on. Private keys live in the
 * secret store (keychain or the 0600 key file) under `ssh-key:<id>`; host
 * keys a person trusted go to `<home>/known_hosts`.
 */

interface StoredEnvironment {
  readonly environmentId: string;
  readonly execServerUrl: string;
  readonly name: string;
  readonly hostKeyFingerprint: string | null;
  readonly slurm: SlurmResourcesParams | null;
  readonly hasPrivateKey: boolean;
}

interface LiveEnvironment {
  readonly stored: StoredEnvironment;
  readonly parsed: ParsedEnvironmentUrl;
  opened: OpenedEnvironment | null;
  lastError: string | null;
  /** A fingerprint the person trusts for the next connection (environment/test `trustHostKey`). */
  trust: string | null;
  /** The last host key no list knew. */
  unknownHostKey: { fingerprint: string; keyType: string } | null;
}

export interface EnvironmentRegistryOptions {
  readonly home: string;
  readonly secrets: SecretStore;
  /** Opens a machine's connection and run environment (electron/exec/remote, handed in by the composition root). */
  readonly open: (config: RemoteEnvironmentConfig, parts: RemoteEnvironmentParts) => OpenedEnvironment;
  /** A machine's connection came or went (published as environment/status/changed). */
  readonly statusChanged: (change: EnvironmentStatusChangedNotification) => void;
  /** Jobs not finished that use an environment (removing it is refused while there are any). */
  readonly jobsUsing: (environmentId: string) => { jobId: string; name: string; status: string }[];
  /** `~/.ssh/known_hosts` of the person (default under the OS home). */
  readonly userKnownHosts?: string;
  /** The SSH agent's socket (default `SSH_AUTH_SOCK`). */
  readonly agentSocket?: string | null;
}

const secretIdOf = (environmentId: string) => `ssh-key:${environmentId}`;

export const unknownEnvironment = (environmentId: string) =>
  RpcError.because('environment.unknown', `no machine ${JSON.stringify(environmentId)}: Settings → Machines (environment/list) shows the ones there are`, { environmentId });

export class EnvironmentRegistry {
  private readonly entries = new Map<string, LiveEnvironment>();
  private readonly file: string;
  private readonly knownHostsFiles: string[];

  constructor(private readonly options: EnvironmentRegistryOptions) {
    this.file = path.join(options.home, 'environments.json');
    this.knownHostsFiles = [options.userKnownHosts ?? path.join(os.homedir(), '.ssh', 'known_hosts'), path.join(options.home, 'known_hosts')];
    for (const stored of this.load()) {
      try {
        this.entries.set(stored.environmentId, this.live(stored));
      } catch {
        // A line edited by hand into something unreadable is left out, not fatal.
      }
    }
  }

  /** Throws the typed error for an unknown id. */
  check(environmentId: string): void {
    if (environmentId !== LOCAL_ENVIRONMENT_ID && !this.entries.has(environmentId)) throw unknownEnvironment(environmentId);
  }

  /**
   * `environments` of thread/start and turn/start: unknown ids are refused,
   * and so is a remote one — the agent's commands, files and terminal run on
   * this computer for now; a remote machine takes jobs.
   */
  checkThreadSelection(selection: readonly { environmentId: string }[] | null | undefined): void {
    for (const { environmentId } of selection ?? []) {
      this.check(environmentId);
      if (environmentId !== LOCAL_ENVIRONMENT_ID) {
        throw RpcError.because('environment.notForThreads', `the agent's commands run on this computer for now, not on ${environmentId}: run the work there as a job (job/create with environmentId)`, {
          environmentId,
        });
      }
    }
  }

  /** The DetachedEnvironment jobs of `environmentId` run on (opened on first use), or null if there is none. */
  detached(environmentId: string): DetachedEnvironment | null {
    const entry = this.entries.get(environmentId);
    return entry ? this.open(entry).detached : null;
  }

  async add(params: EnvironmentAddParams): Promise<Record<string, never>> {
    if (params.environmentId === LOCAL_ENVIRONMENT_ID) throw RpcError.invalidParams('invalid params for environment/add: environmentId: "local" is this machine and always there');
    const parsed = parseEnvironmentUrl(params.execServerUrl, os.userInfo().username);
    if (parsed.ssh === null && params.privateKey) throw RpcError.invalidParams('invalid params for environment/add: privateKey: slurm:/// runs on this machine, without SSH');
    if (params.privateKey !== undefined) await this.options.secrets.set(secretIdOf(params.environmentId), params.privateKey);
    const previous = this.entries.get(params.environmentId);
    const stored: StoredEnvironment = {
      environmentId: params.environmentId,
      execServerUrl: params.execServerUrl,
      name: params.name ?? (parsed.ssh ? `${parsed.ssh.user}@${parsed.ssh.host}` : 'this machine (Slurm)'),
      hostKeyFingerprint: params.hostKeyFingerprint ?? null,
      slurm: parsed.slurm ? { ...parsed.slurm, ...(params.slurm ?? {}) } : null,
      hasPrivateKey: params.privateKey !== undefined || (previous?.stored.hasPrivateKey ?? false),
    };
    previous?.opened?.close();
    this.entries.set(stored.environmentId, this.live(stored));
    this.save();
    this.announce(stored.environmentId);
    return {};
  }

  list(): { data: EnvironmentSummary[] } {
    const local: EnvironmentSummary = {
      environmentId: LOCAL_ENVIRONMENT_ID,
      kind: 'local',
      name: 'This computer',
      execServerUrl: null,
      host: null,
      port: null,
      user: null,
      path: null,
      slurm: null,
      hostKeyFingerprint: null,
      hasPrivateKey: false,
      status: 'ready',
      error: null,
    };
    return { data: [local, ...[...this.entries.values()].map((entry) => this.summary(entry))] };
  }

  status(environmentId: string): { status: EnvironmentStatusKind; error?: string | null } {
    if (environmentId === LOCAL_ENVIRONMENT_ID) return { status: 'ready' };
    const entry = this.entries.get(environmentId);
    if (!entry) return { status: 'unknown', error: `no environment ${JSON.stringify(environmentId)}` };
    const { status, error } = this.statusOf(entry);
    return error ? { status, error } : { status };
  }

  async info(environmentId: string): Promise<{ cwd: string | null; shell: { name: string; path: string } }> {
    if (environmentId === LOCAL_ENVIRONMENT_ID) {
      const shell = process.env.SHELL ?? '/bin/sh';
      return { cwd: null, shell: { name: path.basename(shell), path: shell } };
    }
    const entry = this.require(environmentId);
    const result = await this.open(entry).shell.exec('printf %s "${SHELL:-/bin/sh}"');
    const shell = result.stdout.toString('utf8').trim() || '/bin/sh';
    return { cwd: entry.parsed.path ? `file://${entry.parsed.path}` : null, shell: { name: path.posix.basename(shell), path: shell } };
  }

  /** Refused while a job that is not finished uses it, naming them. */
  async remove(environmentId: string): Promise<Record<string, never>> {
    if (environmentId === LOCAL_ENVIRONMENT_ID) throw RpcError.invalidParams('invalid params for environment/remove: "local" is this machine and cannot be removed');
    const entry = this.require(environmentId);
    const jobs = this.options.jobsUsing(environmentId);
    if (jobs.length > 0) {
      const names = jobs.map((job) => `${job.name} (${job.status})`).join(', ');
      throw RpcError.because('environment.inUse', `cannot remove ${entry.stored.name}: ${jobs.length === 1 ? 'a job uses' : `${jobs.length} jobs use`} it — ${names}. Cancel or finish them first`, {
        environmentId,
        jobs,
        threads: [],
      });
    }
    entry.opened?.close();
    this.entries.delete(environmentId);
    this.save();
    if (entry.stored.hasPrivateKey) await this.options.secrets.delete(secretIdOf(environmentId));
    return {};
  }

  /** Connects, runs `uname -a` and `id` (and `sinfo` for Slurm), times it; a new host key is reported, or trusted when `trustHostKey` is its fingerprint. */
  async test(environmentId: string, trustHostKey?: string): Promise<EnvironmentTestResult> {
    const empty = { latencyMs: null, connectMs: null, uname: null, id: null, scheduler: null, unknownHostKey: null };
    if (environmentId === LOCAL_ENVIRONMENT_ID) {
      return { ...empty, ok: false, error: 'this computer needs no test' };
    }
    const entry = this.require(environmentId);
    entry.trust = trustHostKey ?? null;
    entry.unknownHostKey = null;
    const opened = this.open(entry);
    try {
      await opened.connection?.connect();
      const started = performance.now();
      const result = await opened.shell.exec('uname -a; id');
      const latencyMs = performance.now() - started;
      const [uname = '', id = ''] = result.stdout.toString('utf8').trim().split('\n');
      let scheduler: string | null = null;
      if (entry.parsed.kind === 'slurm') {
        const partition = entry.stored.slurm?.partition;
        const sinfo = await opened.shell.exec(`sinfo -h ${partition ? `-p '${partition.replace(/'/g, '')}' ` : ''}-o '%P %a %D %T' 2>&1`);
        scheduler = sinfo.stdout.toString('utf8').trim() || null;
        if (sinfo.code !== 0) throw new Error(`sinfo failed: ${scheduler ?? `exit ${sinfo.code}`} (is this a Slurm login host?)`);
      }
      entry.lastError = null;
      this.announce(environmentId);
      return { ok: true, latencyMs, connectMs: opened.connection?.latencyMs ?? null, uname, id, scheduler, unknownHostKey: null, error: null };
    } catch (error) {
      const unknown = entry.unknownHostKey as LiveEnvironment['unknownHostKey'];
      const message =
        unknown !== null
          ? `${entry.stored.name} is new to Wheelhouse: check that ${unknown.fingerprint} is its host key (ssh-keygen -lf on the server), then trust it`
          : (error as Error).message;
      entry.lastError = message;
      this.announce(environmentId);
      return { ...empty, ok: false, unknownHostKey: unknown, error: message };
    } finally {
      entry.trust = null;
    }
  }

  /** Ends every connection (runs on the hosts go on). */
  close(): void {
    for (const entry of this.entries.values()) entry.opened?.close();
  }

  private require(environmentId: string): LiveEnvironment {
    const entry = this.entries.get(environmentId);
    if (!entry) throw unknownEnvironment(environmentId);
    return entry;
  }

  private live(stored: StoredEnvironment): LiveEnvironment {
    return { stored, parsed: parseEnvironmentUrl(stored.execServerUrl, os.userInfo().username), opened: null, lastError: null, trust: null, unknownHostKey: null };
  }

  private open(entry: LiveEnvironment): OpenedEnvironment {
    if (entry.opened) return entry.opened;
    const { stored, parsed } = entry;
    const opened = this.options.open(
      {
        environmentId: stored.environmentId,
        kind: parsed.kind,
        ssh: parsed.ssh ? { ...parsed.ssh, pinnedFingerprint: stored.hostKeyFingerprint } : null,
        slurm: stored.slurm,
      },
      {
        mirrorDir: path.join(this.options.home, 'runs', 'remote', stored.environmentId),
        knownHostsFiles: this.knownHostsFiles,
        privateKey: async () => (stored.hasPrivateKey ? this.options.secrets.get(secretIdOf(stored.environmentId)) : null),
        agentSocket: this.options.agentSocket === undefined ? (process.env.SSH_AUTH_SOCK ?? null) : this.options.agentSocket,
        askHostKey: async (question) => {
          if (entry.trust !== null && entry.trust === question.fingerprint) return true;
          entry.unknownHostKey = { fingerprint: question.fingerprint, keyType: question.keyType };
          return false;
        },
      },
    );
    opened.connection?.on('state', (state: SshConnectionState) => {
      if (state === 'connected') entry.lastError = null;
      this.announce(stored.environmentId);
    });
    entry.opened = opened;
    return opened;
  }

  private statusOf(entry: LiveEnvironment): { status: EnvironmentStatusKind; error: string | null } {
    const connection = entry.opened?.connection;
    if (!entry.parsed.ssh) return { status: 'ready', error: null };
    const state = connection?.state ?? 'idle';
    if (state === 'connected') return { status: 'ready', error: null };
    if (state === 'disconnected' || entry.lastError) return { status: 'disconnected', error: entry.lastError ?? 'the connection dropped; it comes back on its next use' };
    return { status: 'pending', error: null };
  }

  private summary(entry: LiveEnvironment): EnvironmentSummary {
    const { stored, parsed } = entry;
    const { status, error } = this.statusOf(entry);
    return {
      environmentId: stored.environmentId,
      kind: parsed.kind,
      name: stored.name,
      execServerUrl: stored.execServerUrl,
      host: parsed.ssh?.host ?? null,
      port: parsed.ssh?.port ?? null,
      user: parsed.ssh?.user ?? null,
      path: parsed.path,
      slurm: stored.slurm,
      hostKeyFingerprint: stored.hostKeyFingerprint,
      hasPrivateKey: stored.hasPrivateKey,
      status,
      error,
    };
  }

  private announce(environmentId: string): void {
    const entry = this.entries.get(environmentId);
    if (!entry) return;
    const { status, error } = this.statusOf(entry);
    this.options.statusChanged({ environmentId, status, error });
  }

  private load(): StoredEnvironment[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(text) as { environments?: StoredEnvironment[] };
      return Array.isArray(parsed.environments) ? parsed.environments : [];
    } catch {
      return [];
    }
  }

  private save(): void {
    ensurePrivateDir(this.options.home);
    const environments = [...this.entries.values()].map((entry) => entry.stored);
    const temp = `${this.file}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify({ environments }, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(temp, this.file);
  }
}

