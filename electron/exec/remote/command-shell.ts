import { randomBytes } from 'node:crypto';
import { ExecError } from '../exec-error.js';
import { shellQuote } from '../detached/run-scripts.js';
import type { ShellResult, ShellStream } from './remote-shell.js';

/**
 * A `/bin/sh` that stays open on one channel and runs short commands one
 * after another, so each pays neither a new SSH session nor the account's
 * login shell (sshd runs every exec through it, and a `.bashrc` that starts
 * tools costs up to a second each time). A script is sent as lines ended by
 * a random marker line, written to a private temp folder there and run by
 * `/bin/sh` with stdin from /dev/null; the answer is `<status> <stdout
 * bytes> <stderr bytes>` and then both outputs, so any bytes come back
 * exactly. Scripts are text (ours): a line equal to the marker cannot occur.
 */
const LOOP = [
  'm=$1',
  'umask 077',
  't=$(mktemp -d 2>/dev/null) || exit 97',
  `trap 'rm -rf "$t"' EXIT`,
  // A dropped connection hangs it up: the temp folder still goes.
  `trap 'exit 1' HUP INT TERM PIPE`,
  // After whatever the login shell printed first.
  `printf '\\nready %s\\n' "$m"`,
  'while :; do',
  `  while IFS= read -r l || exit 0; do [ "$l" = "$m" ] && break; printf '%s\\n' "$l"; done > "$t/s"`,
  '  /bin/sh "$t/s" </dev/null >"$t/o" 2>"$t/e"; c=$?',
  // One `wc` for both sizes, named from inside the folder (its path may hold spaces).
  `  set -- $(cd "$t" && wc -c o e); printf '%s %s %s\\n' "$c" "$1" "$3"; cat "$t/o" "$t/e"`,
  'done',
].join('\n');

export class CommandShell {
  private busy = false;
  private closed = false;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (result: ShellResult) => void; reject: (error: Error) => void } | null = null;
  private constructor(
    private readonly channel: ShellStream,
    private readonly marker: string,
  ) {}

  /** Opens one through `start` (a channel whose command the far side's login shell runs, once); null when it does not answer as expected. */
  static async open(start: (command: string) => Promise<ShellStream>): Promise<CommandShell | null> {
    const marker = `__wheelhouse_${randomBytes(8).toString('hex')}__`;
    const channel = await start(`exec /bin/sh -c ${shellQuote(LOOP)} sh ${marker}`);
    const shell = new CommandShell(channel, marker);
    return (await shell.ready()) ? shell : null;
  }

  get idle(): boolean {
    return !this.busy && !this.closed;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs one script; the shell must be idle. */
  run(script: string): Promise<ShellResult> {
    if (!this.idle) return Promise.reject(new ExecError('spawn-failed', 'the command shell is busy'));
    this.busy = true;
    return new Promise<ShellResult>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.channel.stdin.write(`${script.endsWith('\n') ? script : `${script}\n`}${this.marker}\n`);
    }).finally(() => {
      this.busy = false;
    });
  }

  close(): void {
    this.closed = true;
    this.channel.close();
  }

  private ready(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let said = '';
      const ready = `\nready ${this.marker}\n`;
      const onData = (chunk: Buffer) => {
        said += chunk.toString('latin1');
        const at = said.indexOf(ready);
        if (at < 0) {
          // A login shell that printed this much without our greeting is not going to give it.
          if (said.length > 64 * 1024) {
            this.channel.stdout.removeListener('data', onData);
            this.close();
            resolve(false);
          }
          return;
        }
        this.channel.stdout.removeListener('data', onData);
        this.buffer = Buffer.from(said.slice(at + ready.length), 'latin1');
        this.channel.stdout.on('data', (more: Buffer) => this.take(more));
        resolve(true);
      };
      this.channel.stdout.on('data', onData);
      void this.channel.ended.then(() => {
        this.closed = true;
        resolve(false);
        this.pending?.reject(new ExecError('spawn-failed', 'the connection closed while a command ran'));
        this.pending = null;
      });
    });
  }

  private take(chunk: Buffer): void {
    this.buffer = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    const newline = this.buffer.indexOf(10);
    if (newline < 0 || !this.pending) return;
    const [code, outBytes, errBytes] = this.buffer.subarray(0, newline).toString('latin1').trim().split(/\s+/).map(Number);
    const start = newline + 1;
    const end = start + outBytes! + errBytes!;
    if (this.buffer.length < end) return;
    const stdout = Buffer.from(this.buffer.subarray(start, start + outBytes!));
    const stderr = this.buffer.subarray(start + outBytes!, end).toString('utf8');
    this.buffer = Buffer.from(this.buffer.subarray(end));
    const { resolve } = this.pending;
    this.pending = null;
    // 128 + n: the script was ended by signal n (as an exec channel would say it).
    resolve({ stdout, stderr, code: code!, signal: null });
  }
}
