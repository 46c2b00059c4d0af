import type { ClientChannel } from 'ssh2';
import type { ProcessBackend, RawExit, RemoteProcessTree } from '../backends.js';
import { ExecError } from '../exec-error.js';
import type { SupervisedProcess } from '../supervised-process.js';
import type { ProcessSupervisor } from '../supervisor.js';
import type { OutputStream, RemoteProcessHost, SpawnSpec } from '../types.js';
import { shellQuote } from '../detached/run-scripts.js';
import type { SshConnection } from './ssh-connection.js';

/**
 * Processes of a thread on an SSH host (the agent's exec_command and the
 * person's terminal): each is one exec channel of the machine's shared
 * connection, with a pty when asked, supervised here like a local process
 * (output pipeline, log, flow control, timeout) while its tree is signalled
 * there, through the command's session id.
 */

/** The first bytes of every channel: the command's pid there (its session's id), in an OSC sequence no terminal shows. */
const PID_MARK = '\x1b]wheelhouse-pid;';
const PID_END = '\x07';
/** Bytes looked through for the mark (a login shell's greeting comes first) before passing output on unchanged. */
const MARK_SEARCH_BYTES = 64 * 1024;

/** Exit code of the line below when the folder is not there (as the detached runs use). */
const NO_FOLDER_EXIT = 91;

/** The shell line a channel runs: say its pid, go to the folder, then the command through the login shell, as a job would. */
export function remoteCommandLine(spec: SpawnSpec, host: string): string {
  const overlay: string[] = [];
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (value === null) overlay.push('-u', shellQuote(name));
    else overlay.push(shellQuote(`${name}=${value}`));
  }
  const command =
    typeof spec.command === 'string' ? `"\${SHELL:-/bin/sh}" -lc ${shellQuote(spec.command)}` : spec.command.map((word) => shellQuote(word)).join(' ');
  return [
    `printf '\\033]wheelhouse-pid;%s\\007' "$$"`,
    `cd ${shellQuote(spec.cwd)} 2>/dev/null || { echo ${shellQuote(`no such folder on ${host}: ${spec.cwd}`)} >&2; exit ${NO_FOLDER_EXIT}; }`,
    `exec env ${overlay.join(' ')} ${command}`,
  ].join('; ');
}

export class SshProcesses implements RemoteProcessHost {
  constructor(
    readonly environmentId: string,
    private readonly connection: SshConnection,
    private readonly supervisor: ProcessSupervisor,
  ) {}

  spawn(spec: SpawnSpec): Promise<SupervisedProcess> {
    const tty = spec.tty ?? true;
    const argv = typeof spec.command === 'string' ? ['$SHELL', '-lc', spec.command] : [...spec.command];
    return this.supervisor.spawnElsewhere(spec, argv, async () => {
      const line = remoteCommandLine(spec, this.connection.target.host);
      const channel = await this.connection.openChannel(line, tty ? { cols: spec.cols ?? 80, rows: spec.rows ?? 24, term: 'xterm-256color' } : null);
      return new SshChannelBackend(channel, tty, this.environmentId, this.connection);
    });
  }
}

class SshChannelBackend implements ProcessBackend {
  private remotePid = 0;
  private readonly pidKnown: Promise<number>;
  private resolvePid!: (pid: number) => void;
  readonly remote: RemoteProcessTree;

  constructor(
    private readonly channel: ClientChannel,
    private readonly tty: boolean,
    environmentId: string,
    private readonly connection: SshConnection,
  ) {
    this.pidKnown = new Promise((resolve) => {
      this.resolvePid = resolve;
    });
    const run = async (script: (pid: number) => string) => {
      const pid = await this.pidKnown;
      if (pid <= 0) throw new ExecError('not-running', `the command's process on ${connection.target.host} is not known`);
      return connection.exec(script(pid));
    };
    this.remote = {
      environmentId,
      // The group first (what a terminal's ^C reaches), then anything of the session that left it.
      signal: async (signal) => {
        const name = signal.slice(3);
        await run((pid) => `kill -s ${name} -- -${pid} 2>/dev/null; pkill -${name} -s ${pid} 2>/dev/null; true`);
      },
      gone: async () => {
        const result = await run((pid) => `ps -A -o sid= | awk '$1 == ${pid} { found = 1 } END { print found ? "alive" : "gone" }'`);
        return result.code === 0 && result.stdout.toString('utf8').trim() === 'gone';
      },
    };
  }

  get pid(): number {
    return this.remotePid;
  }

  foregroundProgram(): null {
    return null; // the host's /proc is not ours to read
  }

  write(data: string | Buffer): void {
    if (this.channel.writable) this.channel.write(data);
  }

  endInput(): void {
    if (this.tty) this.write('\x04');
    else this.channel.end();
  }

  resize(cols: number, rows: number): void {
    if (this.tty) this.channel.setWindow(rows, cols, 0, 0);
  }

  // A paused channel stops granting the server window: sshd stops reading the command's output, which then blocks.
  setOutputPaused(paused: boolean): void {
    for (const stream of [this.channel, this.channel.stderr]) {
      if (paused) stream.pause();
      else stream.resume();
    }
  }

  start(onData: (stream: OutputStream, chunk: Buffer) => void, onExit: (exit: RawExit) => void): void {
    let head: Buffer | null = Buffer.alloc(0);
    const out = this.tty ? 'pty' : 'stdout';
    this.channel.on('data', (chunk: Buffer) => {
      if (head === null) return onData(out, chunk);
      head = Buffer.concat([head, chunk]);
      const text = head.toString('latin1');
      const at = text.indexOf(PID_MARK);
      const end = at >= 0 ? text.indexOf(PID_END, at) : -1;
      if (end >= 0) {
        this.remotePid = Number(text.slice(at + PID_MARK.length, end)) || 0;
        this.resolvePid(this.remotePid);
        // What came before the mark is the login shell's, not the command's.
        const rest = head.subarray(end + PID_END.length);
        head = null;
        if (rest.length > 0) onData(out, rest);
      } else if (head.length > MARK_SEARCH_BYTES) {
        const all = head;
        head = null;
        this.resolvePid(0);
        onData(out, all);
      }
    });
    this.channel.stderr.on('data', (chunk: Buffer) => onData('stderr', chunk));
    let exit: RawExit | null = null;
    this.channel.once('exit', (code: number | null, signalName?: string) => {
      exit = signalName ? { exitCode: null, signal: signalName.startsWith('SIG') ? signalName : `SIG${signalName}` } : { exitCode: code, signal: null };
    });
    this.channel.once('close', () => {
      if (head !== null && head.length > 0) onData(out, head);
      head = null;
      this.resolvePid(this.remotePid);
      const { host } = this.connection.target;
      onExit(
        exit ?? {
          exitCode: null,
          signal: null,
          lost: `the connection to ${host} was lost while the command ran, so its end was not seen (it may still be running there)`,
        },
      );
    });
  }
}
