import { EventEmitter } from 'node:events';
import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from 'ssh2';
import { ExecError } from '../exec-error.js';
import { CommandShell } from './command-shell.js';
import { checkHostKey, rememberHostKey } from './host-keys.js';
import type { RemoteShell, ShellResult, ShellStream } from './remote-shell.js';

/**
 * One SSH connection to a host, kept open and shared by everything that runs
 * there (commands, detached runs, their followers). It connects on first use
 * and again after a drop, with backoff. Short commands run in one of up to
 * two long-lived shells on it (command-shell.ts: the login shell is paid
 * once, not per command); a command with input, or one while both shells
 * are busy, gets an exec channel of its own.
 * Host keys are checked before any credential is offered (host-keys.ts).
 * The private key comes from the caller (the keychain) or the SSH agent and
 * lives only in memory for the handshake: never in a file, log or event.
 */

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
}

export interface SshConnectionOptions extends SshTarget {
  /** The user's private key (OpenSSH or PEM text), read from the secret store when needed; null to use the agent only. */
  readonly privateKey: () => Promise<string | null>;
  /** The SSH agent's socket (`SSH_AUTH_SOCK`), if any. */
  readonly agentSocket?: string | null;
  readonly pinnedFingerprint?: string | null;
  /** `~/.ssh/known_hosts` and Wheelhouse's own list; accepted keys are added to the last one. */
  readonly knownHostsFiles: readonly string[];
  /** Asked once for a host no list knows: resolves true to trust the key shown. */
  readonly askHostKey: (question: { host: string; port: number; fingerprint: string; keyType: string }) => Promise<boolean>;
  /** Commands at once on the connection (OpenSSH allows 10 sessions per connection by default). */
  readonly maxChannels?: number;
}

export type SshConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected';

/** Why a connection could not be made, in words for a person; `hostKey` when the host key was refused. */
export class SshConnectError extends ExecError {
  constructor(
    message: string,
    readonly reason: 'host-key-changed' | 'host-key-rejected' | 'auth' | 'network',
  ) {
    super('spawn-failed', message);
    this.name = 'SshConnectError';
  }
}

const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000];
/** Long-lived command shells per connection (each holds a channel). */
const COMMAND_SHELLS = 2;

export class SshConnection extends EventEmitter implements RemoteShell {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private stateNow: SshConnectionState = 'idle';
  private failures = 0;
  private retryAt = 0;
  private lastError: Error | null = null;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private sftpSession: Promise<SFTPWrapper> | null = null;
  private readonly shells: CommandShell[] = [];
  private shellsOpening = 0;
  /** The host's shell did not answer as a command shell: every command gets its own channel. */
  private shellsUnavailable = false;
  /** Milliseconds the last handshake took (connect to ready). */
  latencyMs: number | null = null;

  constructor(private readonly options: SshConnectionOptions) {
    super();
  }

  get state(): SshConnectionState {
    return this.stateNow;
  }

  get target(): SshTarget {
    return { host: this.options.host, port: this.options.port, user: this.options.user };
  }

  /** Connects now if not connected (the first command does this too). */
  async connect(): Promise<void> {
    await this.ready();
  }

  async exec(command: string, input?: string | Buffer): Promise<ShellResult> {
    if (input === undefined) {
      const shell = await this.commandShell();
      if (shell) return shell.run(command);
    }
    return this.execOnChannel(command, input);
  }

  /** Starts `command` on a channel of its own, without a terminal, until it ends or is closed. */
  async stream(command: string): Promise<ShellStream> {
    const channel = await this.openChannel(command, null);
    const err: Buffer[] = [];
    channel.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const ended = new Promise<string>((resolve) => channel.once('close', () => resolve(Buffer.concat(err).toString('utf8'))));
    return { stdin: channel, stdout: channel, ended, close: () => channel.close() };
  }

  /** An idle command shell, opened if there are fewer than two; null when all are busy or the host has none. */
  private async commandShell(): Promise<CommandShell | null> {
    for (let i = this.shells.length - 1; i >= 0; i -= 1) if (this.shells[i]!.isClosed) this.shells.splice(i, 1);
    const idle = this.shells.find((shell) => shell.idle);
    if (idle || this.shellsUnavailable || this.shells.length + this.shellsOpening >= COMMAND_SHELLS) return idle ?? null;
    this.shellsOpening += 1;
    try {
      const shell = await CommandShell.open((command) => this.stream(command));
      if (!shell) {
        // Connected still: the host's shell, not the network, said no.
        if (this.client) this.shellsUnavailable = true;
        return null;
      }
      if (this.closed) {
        shell.close();
        return null;
      }
      this.shells.push(shell);
      return shell;
    } catch {
      // Not connected: the command's own channel says why.
      return null;
    } finally {
      this.shellsOpening -= 1;
    }
  }

  private async execOnChannel(command: string, input?: string | Buffer): Promise<ShellResult> {
    await this.acquire();
    try {
      const client = await this.ready();
      return await new Promise<ShellResult>((resolve, reject) => {
        client.exec(command, (error: Error | undefined, channel: ClientChannel) => {
          if (error) return reject(new ExecError('spawn-failed', `ssh: cannot run a command on ${this.options.host}: ${error.message}`));
          const out: Buffer[] = [];
          const err: Buffer[] = [];
          let code: number | null = null;
          let signal: string | null = null;
          channel.on('data', (chunk: Buffer) => out.push(chunk));
          channel.stderr.on('data', (chunk: Buffer) => err.push(chunk));
          channel.once('exit', (exitCode: number | null, signalName?: string) => {
            code = exitCode;
            signal = signalName ?? null;
          });
          channel.once('close', () => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code, signal }));
          if (input !== undefined) channel.end(input);
          else channel.end();
        });
      });
    } finally {
      this.release();
    }
  }

  /**
   * Starts `command` on a channel of its own with a terminal (`pty`) or plain
   * pipes, for a command that streams and takes input (the agent's commands,
   * the person's terminal). The channel counts against `maxChannels` until it closes.
   */
  async openChannel(command: string, pty: { cols: number; rows: number; term: string } | null): Promise<ClientChannel> {
    await this.acquire();
    try {
      const client = await this.ready();
      const channel = await new Promise<ClientChannel>((resolve, reject) => {
        const done = (error: Error | undefined, opened: ClientChannel) => {
          if (error) reject(new ExecError('spawn-failed', `ssh: cannot run a command on ${this.options.host}: ${error.message}`));
          else resolve(opened);
        };
        if (pty) client.exec(command, { pty: { cols: pty.cols, rows: pty.rows, term: pty.term } }, done);
        else client.exec(command, done);
      });
      channel.once('close', () => this.release());
      return channel;
    } catch (error) {
      this.release();
      throw error;
    }
  }

  /**
   * The connection's SFTP session, the machine's files (remote/sftp-files.ts):
   * opened on first use and again after a drop. It holds one channel for as
   * long as the connection lasts, beside the `maxChannels` of commands.
   */
  sftp(): Promise<SFTPWrapper> {
    if (this.sftpSession) return this.sftpSession;
    const opening = this.openSftp();
    this.sftpSession = opening;
    const forget = () => {
      if (this.sftpSession === opening) this.sftpSession = null;
    };
    opening.then((session) => {
      session.once('close', forget);
      session.once('end', forget);
    }, forget);
    return opening;
  }

  private async openSftp(): Promise<SFTPWrapper> {
    const client = await this.ready();
    const { host } = this.options;
    return new Promise<SFTPWrapper>((resolve, reject) => {
      client.sftp((error: Error | undefined, opened: SFTPWrapper) => {
        if (error) reject(new ExecError('spawn-failed', `${host} does not offer SFTP, which Wheelhouse uses for the files there: add "Subsystem sftp internal-sftp" to its sshd_config (${error.message})`));
        else resolve(opened);
      });
    });
  }

  /**
   * After a drop, connects again by itself with backoff (0.5 s, 1, 2, 5, 10,
   * then every 30 s) until it is connected or closed: for a machine a thread
   * works on, whose header says when it is back. A refused host key or
   * credential is not retried: the person must act.
   */
  reconnect(): void {
    if (this.closed || this.client || this.connecting || this.reconnectTimer) return;
    const backoff = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
    const wait = Math.max(backoff, this.retryAt - performance.now());
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.ready().then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof SshConnectError && error.reason === 'network') this.reconnect();
        },
      );
    }, wait);
    this.reconnectTimer.unref();
  }

  /** Ends the connection; commands after this fail. Runs on the host go on. */
  close(): void {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    for (const shell of this.shells.splice(0)) shell.close();
    this.client?.end();
    this.client = null;
    this.setState('disconnected');
  }

  private setState(state: SshConnectionState): void {
    if (this.stateNow === state) return;
    this.stateNow = state;
    this.emit('state', state);
  }

  private async acquire(): Promise<void> {
    const max = this.options.maxChannels ?? 8;
    if (this.active < max) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
  }

  private release(): void {
    this.active -= 1;
    this.waiting.shift()?.();
  }

  private ready(): Promise<Client> {
    if (this.closed) return Promise.reject(new ExecError('disposed', `the connection to ${this.options.host} was closed`));
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const wait = this.retryAt - performance.now();
    if (wait > 0 && this.lastError) {
      return Promise.reject(new SshConnectError(`${this.lastError.message} (trying again in ${Math.ceil(wait / 1000)} s)`, 'network'));
    }
    this.connecting = this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    this.setState('connecting');
    const { host, port, user } = this.options;
    let privateKey: string | null = null;
    try {
      privateKey = await this.options.privateKey();
    } catch (error) {
      throw this.failed(new SshConnectError(`cannot read the key for ${user}@${host}: ${(error as Error).message}`, 'auth'));
    }
    // Loaded when a machine is first used: starting Wheelhouse never pays for it.
    const { Client: SshClient } = await import('ssh2');
    const client = new SshClient();
    let refusal: SshConnectError | null = null;
    const started = performance.now();
    const config: ConnectConfig = {
      host,
      port,
      username: user,
      readyTimeout: 30_000,
      keepaliveInterval: 15_000,
      keepaliveCountMax: 3,
      ...(privateKey ? { privateKey } : {}),
      ...(this.options.agentSocket ? { agent: this.options.agentSocket } : {}),
      hostVerifier: (key: Buffer, verify: (valid: boolean) => void) => {
        void this.verifyHostKey(key).then(
          (problem) => {
            refusal = problem;
            verify(problem === null);
          },
          (error: Error) => {
            refusal = new SshConnectError(`host key check failed: ${error.message}`, 'host-key-rejected');
            verify(false);
          },
        );
      },
    };
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve());
        client.once('error', (error: Error & { level?: string }) => reject(error));
        client.connect(config);
      });
    } catch (error) {
      client.end();
      if (refusal) throw this.failed(refusal);
      const { level, message } = error as Error & { level?: string };
      if (level === 'client-authentication') {
        throw this.failed(new SshConnectError(`${user}@${host} did not accept the key${this.options.agentSocket ? ' (nor any key of the SSH agent)' : ''}: add its public key to ~/.ssh/authorized_keys there`, 'auth'));
      }
      throw this.failed(new SshConnectError(`cannot connect to ${host}:${port}: ${message}`, 'network'));
    }
    this.latencyMs = performance.now() - started;
    // Small requests one after another (SFTP, keystrokes): Nagle's delay met the host's delayed ACK, ~40 ms each.
    client.setNoDelay(true);
    this.failures = 0;
    this.lastError = null;
    client.on('error', () => undefined);
    client.once('close', () => {
      if (this.client === client) this.client = null;
      // Their channels went with the connection.
      for (const shell of this.shells.splice(0)) shell.close();
      if (!this.closed) this.setState('disconnected');
    });
    this.client = client;
    this.setState('connected');
    return client;
  }

  private failed(error: SshConnectError): SshConnectError {
    this.lastError = error;
    // A refused host key or credential is not retried by itself: the person must act.
    this.retryAt = performance.now() + (error.reason === 'network' ? BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]! : 0);
    this.failures += 1;
    this.setState('disconnected');
    return error;
  }

  /** Null when the key is trusted (or the person trusted it now); else why it was refused. */
  private async verifyHostKey(key: Buffer): Promise<SshConnectError | null> {
    const { host, port, knownHostsFiles } = this.options;
    const verdict = checkHostKey({ host, port, pinnedFingerprint: this.options.pinnedFingerprint ?? null, knownHostsFiles }, key);
    if (verdict.verdict === 'trusted') return null;
    if (verdict.verdict === 'changed') return new SshConnectError(verdict.message, 'host-key-changed');
    const accepted = await this.options.askHostKey({ host, port, fingerprint: verdict.fingerprint, keyType: verdict.keyType });
    if (!accepted) return new SshConnectError(`the host key of ${host} (${verdict.fingerprint}) was not trusted, so nothing was sent`, 'host-key-rejected');
    const own = knownHostsFiles.at(-1);
    if (own) rememberHostKey(own, host, port, key);
    return null;
  }
}
