import { ExecError } from '../exec-error.js';
import type { DetachedExit, DetachedRunHandle, DetachedRunPlace, DetachedRunSpec, DetachedRunState } from '../detached/detached-run.js';
import { parseExit, signalName } from '../detached/run-log-file.js';
import { shellQuote } from '../detached/run-scripts.js';
import { LOOK_BYTES, MirroredEnvironment, type MirroredEnvironmentOptions } from './mirrored-environment.js';
import { remoteArgv, remoteDirWord } from './remote-command.js';
import { arraySpec, arrayLookScript, arrayStateOf, arrayTaskScript, parseArrayLook } from './slurm-arrays.js';
import type { RemoteLook } from './remote-follower.js';
import { expectSuccess } from './remote-shell.js';

/**
 * Runs as Slurm batch jobs: a command job is written as a batch script in a
 * run folder the login host and the nodes share (the home, by default) and
 * submitted with `sbatch`; the Slurm job id is its identity, kept before the
 * run is announced. Its state comes from Slurm (`scontrol show job`, else
 * `sacct`), its output is followed from the `--output` file and copied to
 * this machine, cancel is `scancel`, pause and resume `scontrol
 * suspend|resume`. The same code drives a cluster over SSH (the shell is an
 * SshConnection to the login host) and one whose node this machine is (a
 * LocalShell). Submitting is idempotent: a run folder that names a job, or a
 * job of the run's name still known to Slurm, is found, never submitted again.
 */

export interface SlurmResources {
  readonly partition?: string;
  readonly account?: string;
  /** Slurm's `--time`: minutes, or `[days-]hours:minutes:seconds`. */
  readonly timeLimit?: string;
  readonly cpus?: number;
  /** Slurm's `--mem`: `4G`, `500M`. */
  readonly memory?: string;
  readonly gpus?: number;
}

export interface SlurmDetachedOptions extends SlurmResources, MirroredEnvironmentOptions {
  /** Variables the Slurm commands need (e.g. `SLURM_CONF`), set before each call. */
  readonly schedulerEnv?: Readonly<Record<string, string>>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Slurm's job states, ours beside them. */
const WAITING = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'SPECIAL_EXIT']);
const RUNNING = new Set(['RUNNING', 'COMPLETING', 'SUSPENDED', 'STAGE_OUT', 'SIGNALING', 'RESIZING', 'STOPPED']);
const ENDED_WORDS: Readonly<Record<string, string>> = {
  TIMEOUT: 'stopped by Slurm at its time limit',
  OUT_OF_MEMORY: 'ran out of memory (Slurm ended it at its memory limit)',
  CANCELLED: 'cancelled on the cluster (scancel)',
  PREEMPTED: 'preempted by Slurm for another job',
  DEADLINE: 'stopped by Slurm at its deadline',
};
const LOST_STATES = new Set(['NODE_FAIL', 'BOOT_FAIL', 'REVOKED']);

/** Words for a Slurm job's state; what our state is. */
export function slurmStateOf(jobState: string, exitCode: string, reason: string, exitFile: string | null): DetachedRunState {
  const state = jobState.split(/\s/)[0]!.replace(/\+$/, '');
  if (WAITING.has(state)) return { state: 'running', detail: `waiting for the cluster${reason && reason !== 'None' ? ` (${reason})` : ''}` };
  if (RUNNING.has(state)) return { state: 'running', ...(state === 'SUSPENDED' ? { detail: 'suspended on the cluster' } : {}) };
  if (LOST_STATES.has(state)) return { state: 'lost' };
  const [code, signal] = exitCode.split(':').map(Number);
  const recorded = exitFile ? parseExit(exitFile) : null;
  const exit: DetachedExit = {
    exitCode: recorded?.exitCode ?? (Number.isFinite(code) ? code! : null),
    signal: recorded?.signal ?? (signal ? signalName(signal) : null),
    ...(ENDED_WORDS[state] ? { detail: ENDED_WORDS[state] } : {}),
  };
  if (state === 'COMPLETED' || state === 'FAILED' || ENDED_WORDS[state]) return { state: 'ended', exit };
  return { state: 'lost' };
}

function pickResources({ partition, account, timeLimit, cpus, memory, gpus }: SlurmResources): SlurmResources {
  return { partition, account, timeLimit, cpus, memory, gpus };
}

export class SlurmDetachedEnvironment extends MirroredEnvironment {
  readonly kind = 'slurm' as const;
  /** What the next sbatch asks for: the machine's settings, changed in place by an edit while jobs run. */
  private resources: SlurmResources;

  constructor(private readonly options: SlurmDetachedOptions) {
    super(options, 1000);
    this.resources = pickResources(options);
    for (const name of Object.keys(options.schedulerEnv ?? {})) {
      if (!ENV_NAME.test(name)) throw new ExecError('invalid-spec', `not a variable name: ${JSON.stringify(name)}`);
    }
  }

  async startDetached(place: DetachedRunPlace, spec: DetachedRunSpec): Promise<DetachedRunHandle> {
    this.refuseSandbox(spec);
    const name = `wheelhouse-${place.runId}`;
    const dirWord = remoteDirWord(place.runDir, shellQuote);
    const commandLine = remoteArgv(spec).map(shellQuote).join(' ');
    const array = spec.arrayIndices && spec.arrayIndices.length > 0 ? spec.arrayIndices : null;
    const batch = [
      '#!/bin/sh',
      '# Wheelhouse batch run: runs the command, records its status.',
      ...(array
        ? arrayTaskScript(dirWord, commandLine)
        : [`dir=${dirWord}`, commandLine, 'code=$?', `printf 'exit %s\\n' "$code" > "$dir/exit.tmp" && mv -f "$dir/exit.tmp" "$dir/exit"`, 'exit $code']),
      '',
    ].join('\n');
    const flags = [
      ...(array ? [`--array=${arraySpec(array)}`] : []),
      '--parsable',
      `--job-name=${shellQuote(name)}`,
      '--output="$dir/output.log"',
      '--open-mode=append',
      `--chdir=${shellQuote(spec.cwd)}`,
      ...this.resourceFlags(),
    ];
    const script = [
      this.prelude(),
      `dir=${remoteDirWord(place.runDir, shellQuote)}`,
      // Submitted before (Wheelhouse died before recording it): that job, never a second one.
      'if [ -s "$dir/jobid" ]; then echo "found $(cat "$dir/jobid")"; exit 0; fi',
      // %A: the array's job id for every task of an array (a plain job's own id otherwise).
      `known=$(squeue -h -n ${shellQuote(name)} -o %A 2>/dev/null | head -n 1)`,
      'if [ -n "$known" ]; then echo "$known" > "$dir/jobid"; echo "found $known"; exit 0; fi',
      `command -v sbatch >/dev/null 2>&1 || { echo 'sbatch is not on the PATH of this host: is it a Slurm login node?' >&2; exit 92; }`,
      'mkdir -p "$dir" && chmod 700 "$dir" || exit 90',
      'umask 077',
      ': > "$dir/output.log"',
      `printf '%s' ${shellQuote(batch)} > "$dir/batch.sh"`,
      `id=$(sbatch ${flags.join(' ')} "$dir/batch.sh") || exit 93`,
      'id=${id%%;*}',
      'echo "$id" > "$dir/jobid"',
      'echo "started $id"',
    ].join('\n');
    const result = expectSuccess(await this.options.shell.exec(script), 'submitting the job to Slurm (sbatch)');
    const match = /^(?:found|started) (\d+)/m.exec(result.stdout.toString('utf8'));
    if (!match) throw new ExecError('spawn-failed', `sbatch did not give a job id: ${result.stdout.toString('utf8').trim()}`);
    return { ...place, pid: Number(match[1]), startTime: 'slurm', ...(array ? { arrayIndices: [...array] } : {}) };
  }

  signal(handle: DetachedRunHandle, signal: NodeJS.Signals): void {
    const name = signal.replace(/^SIG/, '');
    const command =
      name === 'STOP' ? `scontrol suspend ${handle.pid}` : name === 'CONT' ? `scontrol resume ${handle.pid}` : `scancel --full --signal=${name} ${handle.pid}`;
    void this.options.shell.exec(`${this.prelude()}\n${command}`).catch(() => undefined);
  }

  /** `scancel` (SIGTERM, then Slurm's own SIGKILL after its KillWait); resolves once Slurm no longer runs it. */
  async terminate(handle: DetachedRunHandle, graceMs: number): Promise<void> {
    const tenths = Math.max(50, Math.ceil(graceMs / 100) + 600);
    const script = [
      this.prelude(),
      `id=${handle.pid}`,
      // A suspended job must run to be ended.
      'scontrol resume $id >/dev/null 2>&1',
      'scancel $id || exit 93',
      `i=0; while [ -n "$(squeue -h -j $id -o %T 2>/dev/null)" ] && [ $i -lt ${tenths} ]; do sleep 0.1; i=$((i+1)); done`,
    ].join('\n');
    expectSuccess(await this.options.shell.exec(script), 'cancelling the Slurm job (scancel)');
  }

  /** A job array's tasks each record their own status: only a look can tell when all are done. */
  protected override streamTarget(handle: DetachedRunHandle): { logPath: string; endMarker: string | null } {
    const target = super.streamTarget(handle);
    return handle.arrayIndices && handle.arrayIndices.length > 0 ? { ...target, endMarker: null } : target;
  }

  /** Slurm's word on the job first (`scontrol`, else `sacct`), then its output from `offset`. */
  protected async look(handle: DetachedRunHandle, offset: number): Promise<RemoteLook> {
    if (handle.arrayIndices && handle.arrayIndices.length > 0) return this.lookAtArray(handle, handle.arrayIndices, offset);
    const script = [
      this.prelude(),
      `dir=${remoteDirWord(handle.runDir, shellQuote)}`,
      `id=${handle.pid}`,
      `s=$(scontrol show job -o $id 2>/dev/null | tr ' ' '\\n' | grep -E '^(JobState|ExitCode|Reason)=' | tr '\\n' ' ')`,
      `[ -n "$s" ] || s=$(sacct -n -P -X -j $id -o State,ExitCode 2>/dev/null | head -n 1 | sed 's/^\\([^|]*\\)|\\(.*\\)$/JobState=\\1 ExitCode=\\2/')`,
      `printf 'state %s\\n' "$s" >&2`,
      `[ -f "$dir/exit" ] && printf 'exit %s\\n' "$(cat "$dir/exit")" >&2`,
      `tail -c +${offset + 1} "$dir/output.log" 2>/dev/null | head -c ${LOOK_BYTES}`,
      'exit 0',
    ].join('\n');
    const result = await this.options.shell.exec(script);
    if (result.code !== 0) throw new ExecError('spawn-failed', `asking Slurm about job ${handle.pid} failed: ${result.stderr.trim()}`);
    const stateLine = /^state (.*)$/m.exec(result.stderr)?.[1] ?? '';
    const exitFile = /^exit (exit \d+.*)$/m.exec(result.stderr)?.[1] ?? null;
    const field = (name: string) => new RegExp(`${name}=(\\S+)`).exec(stateLine)?.[1] ?? '';
    const jobState = field('JobState');
    const state: DetachedRunState = jobState
      ? slurmStateOf(jobState, field('ExitCode'), field('Reason'), exitFile)
      : // Slurm has forgotten it (past MinJobAge, no accounting): what the batch script recorded, else lost.
        exitFile
        ? { state: 'ended', exit: parseExit(exitFile) }
        : { state: 'lost' };
    return { state, data: result.stdout, more: result.stdout.length >= LOOK_BYTES };
  }

  /** A job array: each task's record and recorded status, then the one log from `offset`. */
  private async lookAtArray(handle: DetachedRunHandle, indices: readonly number[], offset: number): Promise<RemoteLook> {
    const script = [
      this.prelude(),
      `dir=${remoteDirWord(handle.runDir, shellQuote)}`,
      `id=${handle.pid}`,
      ...arrayLookScript(),
      `tail -c +${offset + 1} "$dir/output.log" 2>/dev/null | head -c ${LOOK_BYTES}`,
      'exit 0',
    ].join('\n');
    const result = await this.options.shell.exec(script);
    if (result.code !== 0) throw new ExecError('spawn-failed', `asking Slurm about job array ${handle.pid} failed: ${result.stderr.trim()}`);
    const { records, exits } = parseArrayLook(result.stderr);
    const state = arrayStateOf(indices, records, exits, slurmStateOf);
    return { state, data: result.stdout, more: result.stdout.length >= LOOK_BYTES };
  }

  /** From the next submission on (a retry included); jobs already submitted keep what they asked for. */
  setResources(resources: SlurmResources): void {
    this.resources = pickResources(resources);
  }

  private resourceFlags(): string[] {
    const { partition, account, timeLimit, cpus, memory, gpus } = this.resources;
    return [
      ...(partition ? [`--partition=${shellQuote(partition)}`] : []),
      ...(account ? [`--account=${shellQuote(account)}`] : []),
      ...(timeLimit ? [`--time=${shellQuote(timeLimit)}`] : []),
      ...(cpus ? [`--cpus-per-task=${Math.floor(cpus)}`] : []),
      ...(memory ? [`--mem=${shellQuote(memory)}`] : []),
      ...(gpus ? [`--gpus=${Math.floor(gpus)}`] : []),
    ];
  }

  private prelude(): string {
    return Object.entries(this.options.schedulerEnv ?? {})
      .map(([name, value]) => `${name}=${shellQuote(value)}; export ${name}`)
      .join('\n');
  }
}
