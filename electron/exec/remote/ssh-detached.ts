import { ExecError } from '../exec-error.js';
import type { DetachedRunHandle, DetachedRunPlace, DetachedRunSpec, DetachedRunState } from '../detached/detached-run.js';
import { parseExit } from '../detached/run-log-file.js';
import { commandScript, RUN_FILES, shellQuote, wrapperScript } from '../detached/run-scripts.js';
import { LOOK_BYTES, MirroredEnvironment, type MirroredEnvironmentOptions } from './mirrored-environment.js';
import { remoteArgv, remoteDirWord } from './remote-command.js';
import type { RemoteLook } from './remote-follower.js';
import { expectSuccess } from './remote-shell.js';

/**
 * Detached runs on a host over SSH, with the same two scripts as local runs
 * (run-scripts.ts): copied into a run folder on the host
 * (`~/.wheelhouse/runs/<run>`) and started under `setsid`, so the run
 * depends on neither the connection nor Wheelhouse. Identity is the remote
 * wrapper's pid and start time, read back in the same call that starts it.
 * The log is pushed by the connection's log stream and checked by looks
 * (mirrored-environment.ts) and copied to this machine (job pages read the
 * copy). Starting
 * is idempotent: a run whose folder already names a wrapper is found, never
 * started twice.
 */

export interface SshDetachedOptions extends MirroredEnvironmentOptions {
  readonly logCapBytes?: number;
}

/** Shell functions every remote call starts with: a process's start time (Linux /proc field 22, else `ps -o lstart`). */
const PRELUDE = [
  `st() { s=$(sed 's/^.*) //' /proc/$1/stat 2>/dev/null | cut -d' ' -f20); [ -n "$s" ] || s=$(ps -o lstart= -p $1 2>/dev/null | tr -s ' ' '_'); printf '%s' "$s"; }`,
  '',
].join('\n');

interface HostFacts {
  readonly home: string;
  readonly system: string;
  readonly shell: string | null;
}

export class SshDetachedEnvironment extends MirroredEnvironment {
  readonly kind = 'ssh' as const;
  private facts: Promise<HostFacts> | null = null;

  constructor(private readonly options: SshDetachedOptions) {
    super(options, 250);
  }

  async startDetached(place: DetachedRunPlace, spec: DetachedRunSpec): Promise<DetachedRunHandle> {
    this.refuseSandbox(spec);
    const facts = await this.hostFacts();
    const runDir = this.absolute(place.runDir, facts);
    const input = {
      runDir,
      argv: remoteArgv(spec),
      shell: facts.shell,
      cols: spec.cols ?? 120,
      rows: spec.rows ?? 30,
      logCapBytes: spec.logCapBytes ?? this.options.logCapBytes ?? 64 * 1024 * 1024,
      umask: 0o022,
      // Looked up on the host's PATH when the wrapper runs.
      scriptPath: 'script',
      scriptFlavour: facts.system === 'Linux' ? ('util-linux' as const) : ('bsd' as const),
    };
    const dir = shellQuote(runDir);
    const script = [
      PRELUDE,
      `dir=${dir}`,
      // Started before (Wheelhouse died before recording it): that run, never a second one.
      `if [ -s "$dir/${RUN_FILES.wrapperPid}" ]; then pid=$(cat "$dir/${RUN_FILES.wrapperPid}"); if tr '\\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -qF "$dir/${RUN_FILES.wrapper}"; then echo "found $pid $(st $pid)"; else echo "found $pid gone"; fi; exit 0; fi`,
      `command -v setsid >/dev/null 2>&1 || { echo 'setsid is not installed on the host' >&2; exit 92; }`,
      `command -v script >/dev/null 2>&1 || { echo 'script (util-linux) is not installed on the host' >&2; exit 92; }`,
      `mkdir -p "$dir" && chmod 700 "$dir" || exit 90`,
      'umask 077',
      `: > "$dir/${RUN_FILES.log}"`,
      `printf '%s' ${shellQuote(commandScript(input))} > "$dir/${RUN_FILES.command}"`,
      `printf '%s' ${shellQuote(wrapperScript(input))} > "$dir/${RUN_FILES.wrapper}"`,
      `cd ${shellQuote(spec.cwd)} 2>/dev/null || { echo ${shellQuote(`no such folder on the host: ${spec.cwd}`)} >&2; exit 91; }`,
      `TERM=xterm-256color setsid /bin/sh "$dir/${RUN_FILES.wrapper}" </dev/null >/dev/null 2>&1 &`,
      'pid=$!',
      'echo "started $pid $(st $pid)"',
    ].join('\n');
    const result = expectSuccess(await this.options.shell.exec(script), 'starting the run on the host');
    const match = /^(?:found|started) (\d+) ?(\S*)/m.exec(result.stdout.toString('utf8'));
    if (!match) throw new ExecError('spawn-failed', `the host did not say which process it started: ${result.stdout.toString('utf8').trim()}`);
    return { ...place, runDir, pid: Number(match[1]), startTime: match[2] || 'gone' };
  }

  signal(handle: DetachedRunHandle, signal: NodeJS.Signals): void {
    const name = signal.replace(/^SIG/, '');
    const body =
      name === 'STOP'
        ? // Every process of the command except its session leader, which only waits (see local-detached).
          'for p in $(pgrep -s "$leader"); do [ "$p" = "$leader" ] || kill -STOP "$p" 2>/dev/null; done'
        : name === 'CONT'
          ? 'pkill -CONT -s "$pid" 2>/dev/null; [ -n "$leader" ] && pkill -CONT -s "$leader" 2>/dev/null'
          : `kill -${name} -- -"\${leader:-$pid}" 2>/dev/null || kill -${name} "\${leader:-$pid}" 2>/dev/null`;
    void this.options.shell.exec(this.withRun(handle, `alive || exit 0\n${body}`)).catch(() => undefined);
  }

  async terminate(handle: DetachedRunHandle, graceMs: number): Promise<void> {
    const tenths = Math.max(1, Math.ceil(graceMs / 100));
    const body = [
      'alive || exit 0',
      't=${leader:-$pid}',
      'kill -TERM -- -"$t" 2>/dev/null || kill -TERM "$t" 2>/dev/null',
      // A paused run must run to its end and record it.
      'pkill -CONT -s "$pid" 2>/dev/null; [ -n "$leader" ] && pkill -CONT -s "$leader" 2>/dev/null',
      `i=0; while alive && [ $i -lt ${tenths} ]; do sleep 0.1; i=$((i+1)); done`,
      'alive || exit 0',
      '[ -n "$leader" ] && pkill -KILL -s "$leader" 2>/dev/null; kill -KILL -- -"$t" 2>/dev/null',
      'i=0; while alive && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done',
      'alive || exit 0',
      'pkill -KILL -s "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null',
    ].join('\n');
    expectSuccess(await this.options.shell.exec(this.withRun(handle, body)), 'ending the run on the host');
  }

  /** One look: the run's state first, then its log from `offset` (so "ended" means the bytes read are all there is). */
  protected async look(handle: DetachedRunHandle, offset: number): Promise<RemoteLook> {
    const body = [
      `if [ -f "$dir/${RUN_FILES.exit}" ]; then s="ended $(cat "$dir/${RUN_FILES.exit}")"`,
      'elif alive; then s=running',
      `elif [ -f "$dir/${RUN_FILES.exit}" ]; then s="ended $(cat "$dir/${RUN_FILES.exit}")"`,
      // The wrapper was killed after the command recorded its status: the end is known, if not all of the log.
      `elif [ -f "$dir/${RUN_FILES.status}" ]; then s="ended $(cat "$dir/${RUN_FILES.status}")"`,
      'else s=lost; fi',
      `printf '%s\\n' "$s" >&2`,
      `tail -c +${offset + 1} "$dir/${RUN_FILES.log}" 2>/dev/null | head -c ${LOOK_BYTES}`,
    ].join('\n');
    const result = await this.options.shell.exec(this.withRun(handle, body));
    const said = result.stderr.trim().split('\n').at(-1) ?? '';
    let state: DetachedRunState;
    if (said === 'running') state = { state: 'running' };
    else if (said === 'lost') state = { state: 'lost' };
    else if (said.startsWith('ended ')) state = { state: 'ended', exit: parseExit(said.slice('ended '.length)) };
    else throw new ExecError('spawn-failed', `the host gave no state for run ${handle.runId}: ${result.stderr.trim()}`);
    return { state, data: result.stdout, more: result.stdout.length >= LOOK_BYTES };
  }

  /** A remote script with the run's folder, pids and an `alive` test (pid and start time) defined. */
  private withRun(handle: DetachedRunHandle, body: string): string {
    return [
      PRELUDE,
      `dir=${remoteDirWord(handle.runDir, shellQuote)}`,
      `pid=${handle.pid}`,
      `start=${shellQuote(handle.startTime)}`,
      `alive() { [ "$start" != gone ] && [ "$(st $pid)" = "$start" ]; }`,
      `leader=$(cat "$dir/${RUN_FILES.commandPid}" 2>/dev/null)`,
      body,
      '',
    ].join('\n');
  }

  private absolute(runDir: string, facts: HostFacts): string {
    return runDir.startsWith('/') ? runDir : `${facts.home}/${runDir}`;
  }

  private hostFacts(): Promise<HostFacts> {
    this.facts ??= this.options.shell
      .exec(`printf '%s\\n%s\\n%s\\n' "$HOME" "$(uname -s)" "$SHELL"`)
      .then((result) => {
        const [home, system, shell] = expectSuccess(result, 'asking the host about itself').stdout.toString('utf8').split('\n');
        if (!home?.startsWith('/')) throw new ExecError('spawn-failed', 'the host did not say where its home folder is');
        return { home, system: system ?? '', shell: shell || null };
      })
      .catch((error: unknown) => {
        this.facts = null;
        throw error;
      });
    return this.facts;
  }
}
