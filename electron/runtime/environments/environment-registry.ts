import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  LOCAL_ENVIRONMENT_ID,
  RpcError,
  type EnvironmentAddParams,
  type EnvironmentKind,
  type EnvironmentStatusChangedNotification,
  type EnvironmentStatusKind,
  type EnvironmentSummary,
  type EnvironmentTestResult,
  type SlurmResourcesParams,
} from '../../../shared/protocol/index.js';
import type { DetachedEnvironment } from '../../exec/index.js';
import type { OpenedEnvironment, RemoteEnvironmentConfig, RemoteEnvironmentParts } from '../../exec/remote/open-environment.js';
import type { RemoteProcessHost } from '../../exec/index.js';
import type { WorkspaceFiles } from '../../files/workspace-files.js';
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
  /** Replaced in place by an edit that keeps the connection (the connection's listeners hold this entry). */
  stored: StoredEnvironment;
  parsed: ParsedEnvironmentUrl;
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
  /** Whether a loaded thread works there: a dropped connection is then made again by itself, with backoff. */
  readonly keepConnected?: (environmentId: string) => boolean;
  /** Threads (not archived) whose commands run there (removing it is refused while there are any). */
  readonly threadsUsing?: (environmentId: string) => { threadId: string; name: string }[];
  /** `~/.ssh/known_hosts` of the person (default under the OS home). */
  readonly userKnownHosts?: string;
  /** The SSH agent's socket (default `SSH_AUTH_SOCK`). */
  readonly agentSocket?: string | null;
}

const secretIdOf = (environmentId: string) => `ssh-key:${environmentId}`;

/**
 * Whether an edit leaves how Wheelhouse reaches the machine as it was: the same kind, host, port,
 * user, folder and pinned host key (a new private key is checked by the caller). The name and a
 * Slurm machine's resources are not part of it: they touch no running work.
 */
function sameConnection(previous: LiveEnvironment, stored: StoredEnvironment, parsed: ParsedEnvironmentUrl): boolean {
  const before = previous.parsed;
  const sameSsh =
    before.ssh === null || parsed.ssh === null
      ? before.ssh === parsed.ssh
      : before.ssh.host === parsed.ssh.host && before.ssh.port === parsed.ssh.port && before.ssh.user === parsed.ssh.user;
  return before.kind === parsed.kind && sameSsh && before.path === parsed.path && previous.stored.hostKeyFingerprint === stored.hostKeyFingerprint;
}

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
  /** The environment's kind; a typed error for one that does not exist. */
  check(environmentId: string): EnvironmentKind {
    if (environmentId === LOCAL_ENVIRONMENT_ID) return 'local';
    const entry = this.entries.get(environmentId);
    if (!entry) throw unknownEnvironment(environmentId);
    return entry.parsed.kind;
  }

  /**
   * `environments` of thread/start, turn/start and thread/settings/update
   * (Codex's): where the thread's commands, files and terminals run — this
   * computer or one SSH host, with the folder there. Null when none was
   * given (the selection stays); `[]` selects this computer. Unknown ids, a
   * Slurm cluster (its work is batch jobs, not a chat turn's commands), two
   * machines at once and a folder that is not a full path are refused, each
   * with its own words, before anything changes.
   */
  checkThreadSelection(selection: readonly { environmentId: string; cwd: string }[] | null | undefined): { environmentId: string; cwd: string | null } | null {
    if (selection === null || selection === undefined) return null;
    let chosen: { environmentId: string; cwd: string | null } = { environmentId: LOCAL_ENVIRONMENT_ID, cwd: null };
    for (const { environmentId, cwd } of selection) {
      this.check(environmentId);
      if (environmentId === LOCAL_ENVIRONMENT_ID) continue;
      const entry = this.require(environmentId);
      if (entry.parsed.kind !== 'ssh') {
        throw RpcError.because(
          'environment.notForThreads',
          `${entry.stored.name} is a Slurm cluster: it runs batch jobs, not the commands of a chat turn. Run the work there as a job (job/create with environmentId), or pick an SSH machine or this computer for the thread`,
          { environmentId },
        );
      }
      if (chosen.environmentId !== LOCAL_ENVIRONMENT_ID) {
        throw RpcError.invalidParams(`invalid params: environments: a thread's commands run on one machine at a time, not on both ${chosen.environmentId} and ${environmentId}`);
      }
      if (!cwd.startsWith('/')) {
        throw RpcError.invalidParams(`invalid params: environments: cwd on ${entry.stored.name} must be a full path there (starting with /), got ${JSON.stringify(cwd)}`);
      }
      chosen = { environmentId, cwd: path.posix.normalize(cwd) };
    }
    return chosen;
  }

  /** Where a thread's commands and terminals start on `environmentId` (an SSH machine; opened on first use). */
  processes(environmentId: string): RemoteProcessHost {
    const entry = this.require(environmentId);
    const processes = this.open(entry).processes;
    if (!processes) throw RpcError.because('environment.notForThreads', `${entry.stored.name} runs batch jobs only, not a thread's commands`, { environmentId });
    return processes;
  }

  /** A thread's files on `environmentId` (an SSH machine, over SFTP; opened on first use). */
  files(environmentId: string): WorkspaceFiles {
    const entry = this.require(environmentId);
    const files = this.open(entry).files;
    if (!files) throw RpcError.because('environment.notForThreads', `${entry.stored.name} runs batch jobs only, not a thread's file changes`, { environmentId });
    return files;
  }

  /** The machine's name for people ("This computer" for local). */
  nameOf(environmentId: string): string {
    return environmentId === LOCAL_ENVIRONMENT_ID ? 'This computer' : (this.entries.get(environmentId)?.stored.name ?? environmentId);
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
    const previous = this.entries.get(params.environmentId);
    const stored: StoredEnvironment = {
      environmentId: params.environmentId,
      execServerUrl: params.execServerUrl,
      name: params.name ?? (parsed.ssh ? `${parsed.ssh.user}@${parsed.ssh.host}` : 'this machine (Slurm)'),
      hostKeyFingerprint: params.hostKeyFingerprint ?? null,
      slurm: parsed.slurm ? { ...parsed.slurm, ...(params.slurm ?? {}) } : null,
      hasPrivateKey: params.privateKey !== undefined || (previous?.stored.hasPrivateKey ?? false),
    };
    if (previous && params.privateKey === undefined && sameConnection(previous, stored, parsed)) {
      // Only the name or the resources new Slurm jobs ask for: the open connection, and the jobs it follows, stay as they are.
      previous.stored = stored;
      previous.parsed = parsed;
      if (stored.slurm) previous.opened?.setSlurmResources(stored.slurm);
      this.save();
      this.announce(stored.environmentId);
      return {};
    }
    // A new address, user or key replaces the connection running jobs are followed through: not while they run.
    if (previous) this.refuseInUse(params.environmentId, previous, 'change');
    if (params.privateKey !== undefined) await this.options.secrets.set(secretIdOf(params.environmentId), params.privateKey);
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
    this.refuseInUse(environmentId, entry, 'remove');
    entry.opened?.close();
    this.entries.delete(environmentId);
    this.save();
    if (entry.stored.hasPrivateKey) await this.options.secrets.delete(secretIdOf(environmentId));
    return {};
  }

  /**
   * A typed error naming what runs on the machine, if anything: jobs not finished and, when it is
   * to be removed, the threads whose commands run there (a changed address only reconnects them).
   */
  private refuseInUse(environmentId: string, entry: LiveEnvironment, action: 'remove' | 'change'): void {
    const jobs = this.options.jobsUsing(environmentId);
    const threads = action === 'remove' ? (this.options.threadsUsing?.(environmentId) ?? []) : [];
    if (jobs.length === 0 && threads.length === 0) return;
    const users = [
      ...(jobs.length > 0 ? [`${jobs.length === 1 ? 'a job uses' : `${jobs.length} jobs use`} it — ${jobs.map((job) => `${job.name} (${job.status})`).join(', ')}`] : []),
      ...(threads.length > 0 ? [`${threads.length === 1 ? 'a thread runs' : `${threads.length} threads run`} there — ${threads.map((thread) => thread.name).join(', ')}`] : []),
    ];
    const help = [...(jobs.length > 0 ? ['cancel or finish the jobs'] : []), ...(threads.length > 0 ? ['move the threads to another machine or archive them'] : [])].join(' and ');
    const what = action === 'remove' ? 'remove' : 'change the address, user or key of';
    const meanwhile = action === 'change' ? ' (its name and the resources new Slurm jobs ask for can be changed while they run)' : '';
    throw RpcError.because('environment.inUse', `cannot ${what} ${entry.stored.name}: ${users.join('; ')}. ${help.charAt(0).toUpperCase()}${help.slice(1)} first${meanwhile}`, {
      environmentId,
      jobs,
      threads,
    });
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
        name: stored.name,
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
      if (state === 'disconnected' && this.options.keepConnected?.(stored.environmentId)) opened.connection?.reconnect();
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

