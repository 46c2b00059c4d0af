import path from 'node:path';

/**
 * The two small POSIX shell scripts a local detached run is made of, written
 * into the run's own folder (so an app update never changes a running job's
 * wrapper). `run.sh` is the wrapper: it leads its own session (the app starts
 * it detached), keeps the terminal through `script` (util-linux, BusyBox or
 * BSD), caps the log, and writes `exit` once the log is complete.
 * `command.sh` runs inside the terminal: it records its pid (the command's
 * session leader), sizes the terminal, runs the command and records its
 * status. Both trap HUP, INT and TERM with a no-op (deferred until the
 * command they wait for has ended), so a signal to the command's tree ends
 * the command, not the bookkeeping; the command itself gets default handlers.
 */

/** File names inside a run's folder. */
export const RUN_FILES = {
  wrapper: 'run.sh',
  command: 'command.sh',
  log: 'output.log',
  /** The wrapper's pid, written by itself first thing (found again if the app died before recording it). */
  wrapperPid: 'wrapper.pid',
  /** The command's session leader inside the terminal. */
  commandPid: 'command.pid',
  /** `exit <code>`, written by command.sh when the command ends. */
  status: 'status',
  /** Written by the wrapper once the log is complete: `exit <code>`, or `ended` when no status was recorded. */
  exit: 'exit',
  /** What `script` itself said, if anything (not the command's output). */
  wrapperErrors: 'wrapper.err',
} as const;

export interface RunScriptInput {
  readonly runDir: string;
  /** What command.sh runs (already wrapped in the sandbox when there is one). */
  readonly argv: readonly string[];
  /** The SHELL the command sees; null leaves it unset. */
  readonly shell: string | null;
  readonly cols: number;
  readonly rows: number;
  /** Bytes kept in the log, rounded up to 512-byte blocks; Infinity keeps everything. */
  readonly logCapBytes: number;
  /** The umask the command runs with (the app's); the bookkeeping files are owner-only. */
  readonly umask: number;
  /** Absolute path of `script`. */
  readonly scriptPath: string;
  /** BSD `script` (macOS) takes argv after the file; util-linux and BusyBox take `-c <command>`. */
  readonly scriptFlavour: 'util-linux' | 'bsd';
}

/** `value` as one POSIX shell word. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Writes `text` to `name` in the run folder atomically (a reader never sees half a file). */
function atomicWrite(name: string, text: string): string {
  return `printf '%s\\n' ${text} > "$dir/${name}.tmp" && mv -f "$dir/${name}.tmp" "$dir/${name}"`;
}

export function wrapperScript(input: RunScriptInput): string {
  const commandScript = path.join(input.runDir, RUN_FILES.command);
  const terminal =
    input.scriptFlavour === 'bsd'
      ? `${shellQuote(input.scriptPath)} -q /dev/null /bin/sh ${shellQuote(commandScript)}`
      : // util-linux runs -c through $SHELL: a POSIX shell, whatever the user's is.
        `SHELL=/bin/sh ${shellQuote(input.scriptPath)} -q -f -c ${shellQuote(`exec /bin/sh ${shellQuote(commandScript)}`)} /dev/null`;
  const blocks = Number.isFinite(input.logCapBytes) ? Math.ceil(Math.max(0, input.logCapBytes) / 512) : null;
  const marker = `\\r\\n[wheelhouse: log truncated here — its ${(blocks ?? 0) * 512}-byte cap was reached; the command went on, later output is not kept]\\r\\n`;
  const keep =
    blocks === null
      ? `${terminal} < /dev/null 2>> "$dir/${RUN_FILES.wrapperErrors}" >> "$dir/${RUN_FILES.log}"`
      : [
          `${terminal} < /dev/null 2>> "$dir/${RUN_FILES.wrapperErrors}" | {`,
          // cat copies as it reads (no buffering, unlike head); the file-size limit (512-byte blocks) stops it
          // at the cap with EFBIG. Then the marker, and the rest is drained so the command never blocks.
          `  ( trap '' XFSZ; ulimit -f ${blocks}; exec cat ) >> "$dir/${RUN_FILES.log}" 2>/dev/null`,
          `  if [ $? -ne 0 ]; then printf '${marker}' >> "$dir/${RUN_FILES.log}"; exec cat > /dev/null; fi`,
          `}`,
        ].join('\n');
  return [
    '# Wheelhouse detached run: keeps the terminal, caps the log, records how the run ended.',
    `dir=${shellQuote(input.runDir)}`,
    'umask 077',
    atomicWrite(RUN_FILES.wrapperPid, '"$$"'),
    "trap ':' HUP INT TERM",
    keep,
    `if [ -f "$dir/${RUN_FILES.status}" ]; then mv -f "$dir/${RUN_FILES.status}" "$dir/${RUN_FILES.exit}"; else ${atomicWrite(RUN_FILES.exit, 'ended')}; fi`,
    '',
  ].join('\n');
}

export function commandScript(input: RunScriptInput): string {
  return [
    '# Wheelhouse detached run, inside its terminal: runs the command and records its status.',
    `dir=${shellQuote(input.runDir)}`,
    atomicWrite(RUN_FILES.commandPid, '"$$"'),
    "trap ':' HUP INT TERM",
    `stty cols ${input.cols} rows ${input.rows} 2>/dev/null`,
    input.shell === null ? 'unset SHELL' : `SHELL=${shellQuote(input.shell)}; export SHELL`,
    `umask ${(input.umask & 0o777).toString(8).padStart(4, '0')}`,
    input.argv.map(shellQuote).join(' '),
    'code=$?',
    'umask 077',
    atomicWrite(RUN_FILES.status, '"exit $code"'),
    // What the command left running in its group (background jobs) ends with it, as under the supervisor.
    'kill -TERM -$$ 2>/dev/null',
    'exit $code',
    '',
  ].join('\n');
}
