import { ExecError } from './exec-error.js';
import { HeadTailBuffer } from './model-view.js';
import type { SupervisedProcess } from './supervised-process.js';
import type { ProcessSupervisor } from './supervisor.js';
import type { ExitInfo, SpawnSpec } from './types.js';

/** What a Codex-style `exec_command` / `write_stdin` call answers. */
export type ExecYield =
  | {
      readonly status: 'running';
      /** Pass to `poll` / `stop`. */
      readonly sessionId: string;
      readonly processId: number;
      /** Output since the previous answer, bounded (head + tail with a marker). */
      readonly output: string;
    }
  | {
      readonly status: 'exited';
      readonly sessionId: string;
      readonly processId: number;
      readonly output: string;
      readonly exit: ExitInfo;
    };

interface Session {
  readonly process: SupervisedProcess;
  /** Output not yet returned to the caller. */
  readonly unread: HeadTailBuffer;
}

export interface ExecSessionsOptions {
  /** Bytes of output one answer carries at most (head + tail). Default 16 KiB. */
  readonly maxOutputBytes?: number;
}

/**
 * Commands that may outlive the call that started them: `start` waits up to
 * `yieldMs` for the exit and otherwise answers with a session id and the
 * output so far; `poll` writes input and waits again; `stop` ends the tree.
 * Each answer carries the output since the previous one.
 */
export class ExecSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly maxOutputBytes: number;

  constructor(
    private readonly supervisor: ProcessSupervisor,
    options: ExecSessionsOptions = {},
  ) {
    this.maxOutputBytes = options.maxOutputBytes ?? 16 * 1024;
  }

  /**
   * `onSpawned` sees the process before any output, e.g. to stream it or to stop it on an interrupt.
   * `spawn` starts it elsewhere (another machine, remote/ssh-processes.ts); default: this one.
   */
  async start(spec: SpawnSpec, options: { yieldMs: number; onSpawned?: (child: SupervisedProcess) => void; spawn?: (spec: SpawnSpec) => Promise<SupervisedProcess> }): Promise<ExecYield> {
    const child = await (options.spawn ?? ((local: SpawnSpec) => this.supervisor.spawn(local)))(spec);
    options.onSpawned?.(child);
    const unread = new HeadTailBuffer(Math.ceil(this.maxOutputBytes / 2), Math.floor(this.maxOutputBytes / 2));
    child.subscribe((event) => {
      if (event.type === 'output') unread.push(event.data);
    });
    this.sessions.set(child.id, { process: child, unread });
    return this.answer(child.id, options.yieldMs);
  }

  /** Writes `input` (if any), then waits up to `yieldMs` for the exit. */
  async poll(sessionId: string, options: { yieldMs: number; input?: string }): Promise<ExecYield> {
    const session = this.session(sessionId);
    if (options.input && session.process.state !== 'exited') session.process.write(options.input);
    return this.answer(sessionId, options.yieldMs);
  }

  /** Terminates the whole tree and answers with the final output. */
  async stop(sessionId: string): Promise<ExecYield> {
    const session = this.session(sessionId);
    await session.process.terminate();
    return this.answer(sessionId, 0);
  }

  /** Sessions still known (running, or exited and not yet collected). */
  list(): string[] {
    return [...this.sessions.keys()];
  }

  private session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw new ExecError('unknown-session', `no exec session ${sessionId} (it never existed, or its exit was already returned)`);
    return session;
  }

  private async answer(sessionId: string, yieldMs: number): Promise<ExecYield> {
    const session = this.session(sessionId);
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      session.process.exited,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), Math.max(0, yieldMs));
      }),
    ]);
    clearTimeout(timer);
    session.process.flushOutput();
    const output = session.unread.text();
    session.unread.reset();
    const base = { sessionId, processId: session.process.pid, output };
    if (!exit) return { status: 'running', ...base };
    this.sessions.delete(sessionId);
    return { status: 'exited', ...base, exit };
  }
}
