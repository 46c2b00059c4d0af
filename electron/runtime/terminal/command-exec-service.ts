import os from 'node:os';
import path from 'node:path';
import {
  RpcError,
  type CommandExecResult,
  type ErrorReason,
  type HandlerParamsOf,
} from '../../../shared/protocol/index.js';
import {
  ExecError,
  terminalShellArgv,
  type ExecErrorCode,
  type ProcessEvent,
  type ProcessSupervisor,
  type RemoteProcessHost,
  type SupervisedProcess,
  type Subscription,
} from '../../exec/index.js';
import type { CommandOutputChunk } from './command-output-text.js';
import { ackWhenClientsCatchUp, type ClientBacklogSource } from './client-pacing.js';

/** How the service reaches connections: the OutgoingSender, seen narrowly. */
export interface ConnectionNotifier {
  /** Whether any connection is registered at all (none: an in-process caller, which counts as connected). */
  readonly connectionCount: number;
  isConnected(connectionId: string): boolean;
  /** Delivers a `command/exec/outputDelta` to one connection; false when it is not (or no longer) connected. */
  notifyCommandOutput(connectionId: string, chunk: CommandOutputChunk): boolean;
  /** How far their carriers lag. */
  readonly backlog: ClientBacklogSource;
  /** Calls back when a connection goes away; returns the removal. */
  onConnectionClosed(listener: (connectionId: string) => void): () => void;
}

export interface CommandExecServiceOptions {
  readonly supervisor: ProcessSupervisor;
  readonly clients: ConnectionNotifier;
  /** Working folder when the request names none. */
  readonly defaultCwd: string;
  /**
   * Where a thread's commands run when it works on another machine (its
   * processes there and its folder there), null for this computer; throws a
   * typed error for an unknown thread. Absent: everything runs here.
   */
  readonly machineOf?: (threadId: string) => Promise<ThreadMachine | null>;
}

/** A thread's machine as the terminal needs it (the parts come from electron/exec/remote). */
export interface ThreadMachine {
  readonly processes: RemoteProcessHost;
  readonly cwd: string;
}

/** The interactive login shell there: the account's own, as the local terminal starts the person's. */
const REMOTE_LOGIN_SHELL = 'exec "${SHELL:-/bin/sh}" -l';

/** Per-stream capture cap when the request sets none (Codex applies a server default too). */
export const DEFAULT_OUTPUT_BYTES_CAP = 1024 * 1024;
/** Timeout of a buffered command that sets none; streaming sessions (terminals) have none. */
export const DEFAULT_BUFFERED_TIMEOUT_MS = 10_000;

type Stream = 'stdout' | 'stderr';

interface Running {
  readonly child: SupervisedProcess;
  readonly subscription: Subscription;
}

interface ExecSession {
  readonly connectionId: string;
  /**
   * Registered before the process exists: a client sends its first keystrokes
   * and its size right after `command/exec` (whose answer only comes at exit),
   * so follow-ups wait for the start, in order, instead of failing.
   */
  readonly started: Promise<Running | null>;
  readonly clientAcks: boolean;
  readonly streamStdin: boolean;
}

/**
 * `command/exec` and its follow-ups: commands the person (or a client) runs
 * outside any thread, through the one process supervisor. Output and process
 * ids are connection-scoped, as in Codex: deltas go only to the connection that
 * started the command, never into the event log (a terminal's bytes are not
 * thread history and would flood every other client and the replay store),
 * and the whole tree dies when that connection closes.
 */
export class CommandExecService {
  private readonly sessions = new Map<string, ExecSession>();
  /** Buffered commands without a processId: unreachable by follow-ups, but they die with their connection too. */
  private readonly anonymous = new Set<ExecSession>();
  private readonly stopWatching: () => void;

  constructor(private readonly options: CommandExecServiceOptions) {
    this.stopWatching = options.clients.onConnectionClosed((connectionId) => void this.connectionClosed(connectionId));
  }

  /** Stops following connections (the runtime closes). */
  close(): void {
    this.stopWatching();
  }

  /**
   * Wraps a flow-controlled subscription's `ack`: output going to one
   * connection (or, null, to every client, as the agent's command output does)
   * is acknowledged once their carriers have caught up, so a slow client
   * pauses the command instead of output piling up or being dropped.
   */
  ackWhenClientsCatchUp(connectionId: string | null, ack: (bytes: number) => void): (bytes: number) => void {
    return ackWhenClientsCatchUp([this.options.clients.backlog], connectionId, ack);
  }

  async exec(params: HandlerParamsOf<'command/exec'>, connectionId: string): Promise<CommandExecResult> {
    const tty = params.tty ?? false;
    const streaming = tty || (params.streamStdoutStderr ?? false);
    const streamStdin = tty || (params.streamStdin ?? false);
    const processId = params.processId ?? null;
    checkCombinations(params, tty, streaming || streamStdin);
    if (processId !== null && this.sessions.has(key(connectionId, processId))) {
      throw RpcError.because('process.idInUse', `processId ${processId} is already running on this connection`, { processId });
    }
    const cap = params.disableOutputCap ? Number.POSITIVE_INFINITY : (params.outputBytesCap ?? DEFAULT_OUTPUT_BYTES_CAP);
    const timeoutMs = params.disableTimeout ? undefined : (params.timeoutMs ?? (streaming ? undefined : DEFAULT_BUFFERED_TIMEOUT_MS));
    if (params.cwd != null && !path.isAbsolute(params.cwd)) throw RpcError.invalidParams(`cwd must be an absolute path, got ${params.cwd}`);
    const clientAcks = streaming && (params.outputAck ?? false);
    let markStarted: (running: Running | null) => void = () => undefined;
    const sessionKey = processId === null ? null : key(connectionId, processId);
    const session: ExecSession = {
      connectionId,
      started: new Promise((resolve) => (markStarted = resolve)),
      clientAcks,
      streamStdin,
    };
    if (sessionKey) this.sessions.set(sessionKey, session);
    else this.anonymous.add(session);
    try {
      // Looked up once the session is registered: the client's first keystrokes may already be on their way.
      const machine = params.threadId && this.options.machineOf ? await this.options.machineOf(params.threadId) : null;
      const cwd = params.cwd ?? machine?.cwd ?? this.options.defaultCwd;
      return await this.run(params, { connectionId, processId, tty, streaming, cap, timeoutMs, cwd, machine }, markStarted);
    } finally {
      markStarted(null);
      if (sessionKey && this.sessions.get(sessionKey) === session) this.sessions.delete(sessionKey);
      this.anonymous.delete(session);
    }
  }

  private async run(
    params: HandlerParamsOf<'command/exec'>,
    how: {
      connectionId: string;
      processId: string | null;
      tty: boolean;
      streaming: boolean;
      cap: number;
      timeoutMs: number | undefined;
      cwd: string;
      machine: ThreadMachine | null;
    },
    markStarted: (running: Running) => void,
  ): Promise<CommandExecResult> {
    const { connectionId, processId, tty, streaming, cap, timeoutMs, cwd, machine } = how;
    const clientAcks = streaming && (params.outputAck ?? false);
    let command: string | readonly string[] = params.command;
    if (params.loginShell) command = machine ? REMOTE_LOGIN_SHELL : terminalShellArgv((await this.options.supervisor.loginEnvironment()).shell);
    // The person's own typing: unsandboxed and unasked here and there alike (a spec asking for a sandbox there is refused anyway).
    const spawn = machine ? machine.processes.spawn.bind(machine.processes) : this.options.supervisor.spawn.bind(this.options.supervisor);
    let child: SupervisedProcess;
    try {
      child = await spawn({
        command,
        cwd,
        ...(params.env ? { env: params.env } : {}),
        tty,
        ...(params.size ? { cols: params.size.cols, rows: params.size.rows } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        // Per-stream caps are applied below; the supervisor's is the sum, so it never cuts first.
        outputCapBytes: cap === Number.POSITIVE_INFINITY ? cap : cap * (tty ? 1 : 2),
        label: `command/exec ${processId ?? ''}`.trim(),
      });
    } catch (error) {
      if (error instanceof ExecError) throw execRefusal(error);
      throw error;
    }
    const captured = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const sent = { stdout: 0, stderr: 0 };
    const capped = { stdout: false, stderr: false };
    /** Returns the bytes handed to the client (what it will acknowledge, with outputAck). */
    const onOutput = (stream: Stream, data: Buffer): number => {
      if (capped[stream]) return 0;
      let chunk = data;
      const room = cap - sent[stream];
      if (chunk.length >= room) {
        chunk = chunk.subarray(0, room);
        capped[stream] = cap !== Number.POSITIVE_INFINITY && data.length > room;
      }
      sent[stream] += chunk.length;
      if (!streaming) {
        captured[stream].push(chunk);
        return 0;
      }
      if (chunk.length === 0 && !capped[stream]) return 0;
      const delivered = this.options.clients.notifyCommandOutput(connectionId, { processId: processId!, stream, data: chunk, capReached: capped[stream] });
      // Unacknowledged by a client that will never ack (gone): stop the command instead of pausing it forever.
      if (!delivered) void child.terminate();
      return delivered ? chunk.length : 0;
    };
    // Without client acks, streamed output counts as consumed once the connection's carrier has sent it.
    const ackSent = this.ackWhenClientsCatchUp(connectionId, (bytes) => subscription.ack(bytes));
    const subscription = child.subscribe(
      (event: ProcessEvent) => {
        if (event.type !== 'output') return;
        const stream: Stream = event.stream === 'stderr' ? 'stderr' : 'stdout';
        const handedToClient = onOutput(stream, event.data);
        // Captured (buffered mode) or over the cap: consumed now. What the client got it acknowledges itself (outputAck).
        if (event.data.length > handedToClient) subscription.ack(event.data.length - handedToClient);
        if (handedToClient > 0 && !clientAcks) ackSent(handedToClient);
      },
      { flowControl: true },
    );
    markStarted({ child, subscription });
    // The connection may have closed while the shell started.
    if (!this.connected(connectionId)) void child.terminate();
    const exit = await child.exited;
    subscription.dispose();
    return {
      exitCode: exitCodeOf(exit.exitCode, exit.signal),
      stdout: Buffer.concat(captured.stdout).toString('utf8'),
      stderr: Buffer.concat(captured.stderr).toString('utf8'),
    };
  }

  async write(params: HandlerParamsOf<'command/exec/write'>, connectionId: string): Promise<Record<string, never>> {
    const session = this.require(connectionId, params.processId);
    if (!session.streamStdin) throw RpcError.invalidRequest(`processId ${params.processId} was started without streamStdin or tty`);
    const running = await this.running(session, params.processId);
    guard(() => {
      if (params.deltaBase64) running.child.write(Buffer.from(params.deltaBase64, 'base64'));
      if (params.closeStdin) running.child.endInput();
    });
    return {};
  }

  async resize(params: HandlerParamsOf<'command/exec/resize'>, connectionId: string): Promise<Record<string, never>> {
    const running = await this.running(this.require(connectionId, params.processId), params.processId);
    guard(() => running.child.resize(params.size.cols, params.size.rows));
    return {};
  }

  async terminate(params: HandlerParamsOf<'command/exec/terminate'>, connectionId: string): Promise<Record<string, never>> {
    const running = await this.running(this.require(connectionId, params.processId), params.processId);
    await running.child.terminate();
    return {};
  }

  async ack(params: HandlerParamsOf<'command/exec/ack'>, connectionId: string): Promise<Record<string, never>> {
    const session = this.require(connectionId, params.processId);
    if (!session.clientAcks) throw RpcError.invalidRequest(`processId ${params.processId} was started without outputAck`);
    (await this.running(session, params.processId)).subscription.ack(params.bytes);
    return {};
  }

  /** What runs in front in the command's terminal (a terminal panel asks before it closes on it). */
  async foreground(params: HandlerParamsOf<'command/exec/foreground'>, connectionId: string): Promise<{ program: string | null }> {
    const running = await this.running(this.require(connectionId, params.processId), params.processId);
    return { program: running.child.foregroundProgram() };
  }

  /** The connection is gone: its commands go with it, whole trees (Codex does the same). */
  async connectionClosed(connectionId: string): Promise<void> {
    const mine = [...this.sessions.values(), ...this.anonymous].filter((s) => s.connectionId === connectionId);
    await Promise.all(mine.map(async (s) => (await s.started)?.child.terminate()));
  }

  private async running(session: ExecSession, processId: string): Promise<Running> {
    const running = await session.started;
    if (!running) throw RpcError.because('process.notRunning', `command/exec ${processId} could not start or has ended`, { processId });
    return running;
  }

  /** A caller with no carrier (in-process) counts as connected; its streamed output has nowhere to go. */
  private connected(connectionId: string): boolean {
    return this.options.clients.connectionCount === 0 || this.options.clients.isConnected(connectionId);
  }

  private require(connectionId: string, processId: string): ExecSession {
    const session = this.sessions.get(key(connectionId, processId));
    if (!session) throw RpcError.because('process.notRunning', `no running command/exec with processId ${processId} on this connection`, { processId });
    return session;
  }
}

function key(connectionId: string, processId: string): string {
  return `${connectionId}\u0000${processId}`;
}

function checkCombinations(params: HandlerParamsOf<'command/exec'>, tty: boolean, needsId: boolean): void {
  if (needsId && !params.processId) throw RpcError.invalidParams('tty, streamStdin and streamStdoutStderr need a client-supplied processId');
  if (params.size && !tty) throw RpcError.invalidParams('size is only valid with tty');
  if (params.loginShell && !tty) throw RpcError.invalidParams('loginShell is only valid with tty');
  if (params.timeoutMs != null && params.disableTimeout) throw RpcError.invalidParams('timeoutMs cannot be combined with disableTimeout');
  if (params.outputBytesCap != null && params.disableOutputCap) throw RpcError.invalidParams('outputBytesCap cannot be combined with disableOutputCap');
  if ((params.sandboxPolicy !== undefined && params.sandboxPolicy !== null) || params.permissionProfile) {
    throw RpcError.invalidParams('command/exec runs the person\'s own commands unsandboxed here; sandboxPolicy and permissionProfile are not supported');
  }
}

function guard(action: () => void): void {
  try {
    action();
  } catch (error) {
    if (error instanceof ExecError) throw execRefusal(error);
    throw error;
  }
}

/** A signal death reads as 128 + the signal's number, as a shell reports it. */
function exitCodeOf(exitCode: number | null, signal: string | null): number {
  if (exitCode !== null) return exitCode;
  const number = signal ? os.constants.signals[signal as keyof typeof os.constants.signals] : undefined;
  return number ? 128 + number : -1;
}

const EXEC_REFUSALS: Readonly<Record<ExecErrorCode, ErrorReason>> = {
  'invalid-spec': 'process.invalidSpec',
  'bad-cwd': 'process.badCwd',
  'not-found': 'process.commandNotFound',
  'sandbox-unavailable': 'process.sandboxUnavailable',
  'spawn-failed': 'process.spawnFailed',
  'log-failed': 'process.logFailed',
  disposed: 'process.shuttingDown',
  'not-running': 'process.notRunning',
  'unknown-session': 'process.unknownSession',
};

/** The supervisor's typed failure as the protocol's: its code becomes a reason of the closed union. */
function execRefusal(error: ExecError): RpcError {
  return RpcError.because(EXEC_REFUSALS[error.code], error.message);
}
