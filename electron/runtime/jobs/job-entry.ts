import type { Job, JobCreateCommandParams, JobKind, ScheduleNotify } from '../../../shared/protocol/index.js';
import type { DetachedAttachment, DetachedRunHandle, DetachedRunPlace, SandboxPolicy, SupervisedProcess } from '../../exec/index.js';
import type { JobRow } from '../../store/job-store.js';
import { encodePersistedDetail, fromStored, setRunning, type JobStateRecord } from './job-state.js';
import { EtaEstimator, OutputProgressParser } from './output-progress.js';
import { jobAgentOf, parseAgentSpec, type AgentSpec } from './agent-spec.js';

/** What a command job runs, as stored in the `spec` column. */
export interface CommandSpec {
  readonly command: string;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly progressFromOutput?: boolean;
  /** The agent's jobs run in its thread's sandbox; the person's own run unconfined, as their terminal does. */
  readonly sandbox?: SandboxPolicy;
  /** Set while the job waits for the person's approval (job-approvals.ts); it does not start until cleared. */
  readonly approval?: JobApprovalNeed;
  /** A lost run may be run again from the start (job/create `rerunIfLost`). */
  readonly rerunIfLost?: boolean;
  /** Where it runs (environment/list); absent: this machine. */
  readonly environmentId?: string;
  /** A Slurm job array of this many tasks. */
  readonly arrayTasks?: number;
}

/** Why a job waits for approval, kept with the job so it can ask again after a restart. */
export interface JobApprovalNeed {
  readonly reason: string;
  /** The commands of the script (argv) as the exec policy read them. */
  readonly commands: readonly (readonly string[])[];
  /** What "approve for this thread" grants (agent jobs). */
  readonly sessionPrefixes: readonly (readonly string[])[];
  readonly proposedAmendment: readonly string[] | null;
  /** The turn that started the job (agent jobs); gone after a restart. */
  readonly turnId: string | null;
}

export function commandSpecOf(params: JobCreateCommandParams): CommandSpec {
  return {
    command: params.command,
    cwd: params.cwd,
    ...(params.env ? { env: params.env } : {}),
    ...(params.timeoutMs !== undefined ? { timeoutMs: params.timeoutMs } : {}),
    ...(params.progressFromOutput ? { progressFromOutput: true } : {}),
    ...(params.rerunIfLost ? { rerunIfLost: true } : {}),
    ...(params.environmentId && params.environmentId !== 'local' ? { environmentId: params.environmentId } : {}),
    ...(params.arrayTasks !== undefined && params.arrayTasks > 1 ? { arrayTasks: params.arrayTasks } : {}),
  };
}

/** The live part of a run in this process. */
export interface LiveRun {
  readonly run: number;
  /** A run inside the app (a command the agent started, adopted; or where runs cannot be detached). */
  process: SupervisedProcess | null;
  /** A detached run's place once prepared (made durable before it starts), then its identity. */
  place: DetachedRunPlace | null;
  handle: DetachedRunHandle | null;
  /** Following its log and end. */
  attachment: DetachedAttachment | null;
  /** Log bytes sent to clients and progress parsing; what of it the store has. */
  streamedBytes: number;
  storedStreamedBytes: number;
  streamedTimer: ReturnType<typeof setTimeout> | null;
  /** Its time limit, while it runs (stopped while paused). */
  timeoutTimer: ReturnType<typeof setTimeout> | null;
  /** Set when Wheelhouse ends the run for its time limit. */
  timedOut: boolean;
  /** Re-attached after a restart and found gone without an exit status. */
  lostWhileAway: boolean;
  /** Ended by Wheelhouse quitting with "keep running" (a run inside the app cannot): it fails, saying so. */
  quitEnded: boolean;
  /** Resolves once the run's final transition is made (cancel waits for it). */
  readonly ended: Promise<void>;
  markEnded: () => void;
  cancelRequested: boolean;
  /** The detail a cancel leaves (default "cancelled; it …how it ended"). */
  cancelDetail: string | null;
  /** What the scheduler last said it waits for (shown as the job's detail until the run begins). */
  waitingDetail: string | null;
  readonly outputParser: OutputProgressParser | null;
  readonly eta: EtaEstimator;
  /** Progress waiting for the job's next commit slot. */
  pendingProgress: number | null | undefined;
  progressTimer: ReturnType<typeof setTimeout> | null;
}

/** A run as it begins (or is re-attached): nothing started, nothing streamed yet. */
export function newLiveRun(run: number, progressFromOutput: boolean, streamedBytes = 0): LiveRun {
  let markEnded!: () => void;
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  return {
    run,
    process: null,
    place: null,
    handle: null,
    attachment: null,
    streamedBytes,
    storedStreamedBytes: streamedBytes,
    streamedTimer: null,
    waitingDetail: null,
    timeoutTimer: null,
    timedOut: false,
    lostWhileAway: false,
    quitEnded: false,
    ended,
    markEnded,
    cancelRequested: false,
    cancelDetail: null,
    outputParser: progressFromOutput ? new OutputProgressParser() : null,
    eta: new EtaEstimator(),
    pendingProgress: undefined,
    progressTimer: null,
  };
}

/** One job as the engine holds it: the seed's record plus the columns around it. */
export interface JobEntry {
  readonly state: JobStateRecord;
  readonly kind: JobKind;
  /** A command job's command (an agent job's holds only its folder); replaced when its approval is given. */
  spec: CommandSpec;
  /** An agent job's goal, budgets and usage; null for command jobs. */
  readonly agent: AgentSpec | null;
  readonly threadId: string | null;
  /** The schedule whose slot this job is (fixed at creation). */
  readonly scheduleId: string | null;
  readonly scheduleNotify: ScheduleNotify | null;
  /** Aborts the wait for approval (cancel, delete, quit). */
  approvalWait: AbortController | null;
  exitCode: number | null;
  runs: number;
  /** `job/retry` presses that started a run. */
  manualRetries: number;
  /** The next start continues the current run instead of a new one (an agent job after a restart). */
  continueRun: boolean;
  queueOrder: number;
  /** Running time of the current or last run before `activeSince`. */
  activeMs: number;
  /** When the run last started or resumed (ms epoch); null while not running. */
  activeSince: number | null;
  etaMs: number | null;
  live: LiveRun | null;
  retryTimer: unknown;
  /** performance.now() of the last commit, for the per-job commit rate. */
  lastCommitAt: number;
}

export function activeMsAt(entry: JobEntry, now: number): number {
  return Math.round(entry.activeMs + (entry.activeSince === null ? 0 : Math.max(0, now - entry.activeSince)));
}

/**
 * A run (command or agent) is running from `now`: its clock starts (a run that
 * continues keeps the time it had), and no estimate, exit, progress or detail
 * of the run before it (its exit, a retry countdown) describes this one.
 */
export function markRunning(entry: JobEntry, now: number, continuing = false): void {
  if (!continuing) entry.activeMs = 0;
  entry.activeSince = now;
  entry.etaMs = null;
  entry.exitCode = null;
  entry.state.progress = null;
  entry.state.detail = null;
  setRunning(entry.state, now);
}

/** A spec's JSON, made once per spec object (a spec is replaced, never changed, e.g. when its approval is given). */
const encodedSpecs = new WeakMap<CommandSpec, string>();

function specJson(spec: CommandSpec): string {
  let json = encodedSpecs.get(spec);
  if (json === undefined) {
    json = JSON.stringify(spec);
    encodedSpecs.set(spec, json);
  }
  return json;
}

export function rowOf(entry: JobEntry, now: number): JobRow {
  const { state } = entry;
  return {
    id: state.id,
    kind: entry.kind,
    name: state.name,
    status: state.status,
    progress: state.progress,
    message: state.detail,
    attempt: state.retry.attempt,
    maxAttempts: state.retry.maxAttempts,
    nextRetryAtMs: state.retry.nextRetryAt,
    exitCode: entry.exitCode,
    threadId: entry.threadId,
    scheduleId: entry.scheduleId,
    scheduleNotify: entry.scheduleNotify,
    command: entry.agent ? null : entry.spec.command,
    cwd: entry.spec.cwd,
    runs: entry.runs,
    activeMs: activeMsAt(entry, now),
    etaMs: entry.etaMs,
    queueOrder: entry.queueOrder,
    manualRetries: entry.manualRetries,
    // While it runs: when it would have started had it never paused, so running time = now − this.
    activeSinceMs: entry.activeSince === null ? null : entry.activeSince - entry.activeMs,
    // An agent job's spec changes as it runs (its usage), so it is encoded every time.
    spec: entry.agent ? JSON.stringify(entry.agent) : specJson(entry.spec),
    detail: encodePersistedDetail(state),
    createdAtMs: state.createdAt,
    updatedAtMs: state.updatedAt,
  };
}

export function entryOf(row: JobRow): JobEntry {
  const state = fromStored({
    id: row.id,
    name: row.name,
    status: row.status,
    progress: row.progress,
    detail: row.detail,
    createdAt: row.createdAtMs,
    updatedAt: row.updatedAtMs,
  });
  const agent = row.kind === 'agent' ? parseAgentSpec(row.spec) : null;
  let spec: CommandSpec;
  if (row.kind === 'agent') {
    spec = { command: '', cwd: row.cwd };
  } else {
    try {
      spec = JSON.parse(row.spec) as CommandSpec;
    } catch {
      spec = { command: row.command ?? '', cwd: row.cwd };
    }
  }
  return {
    state,
    kind: row.kind,
    spec,
    agent,
    threadId: row.threadId,
    scheduleId: row.scheduleId,
    scheduleNotify: row.scheduleNotify,
    approvalWait: null,
    exitCode: row.exitCode,
    runs: row.runs,
    manualRetries: row.manualRetries,
    continueRun: false,
    queueOrder: row.queueOrder,
    activeMs: row.activeMs,
    activeSince: null,
    etaMs: row.etaMs,
    live: null,
    retryTimer: null,
    lastCommitAt: -Infinity,
  };
}

/** The wire object of an entry as it is now, without encoding what only the store needs (the same fields as `jobOf(rowOf(…))`). */
export function jobOfEntry(entry: JobEntry, now: number): Job {
  const { state } = entry;
  return {
    id: state.id,
    kind: entry.kind,
    name: state.name,
    status: state.status,
    progress: state.progress,
    detail: state.detail,
    attempt: state.retry.attempt,
    maxAttempts: state.retry.maxAttempts,
    maxRuns: maxRunsOf(entry.runs, state.retry.maxAttempts, entry.manualRetries),
    rerunIfLost: entry.agent ? false : entry.spec.rerunIfLost === true,
    nextRetryAt: state.retry.nextRetryAt,
    exitCode: entry.exitCode,
    threadId: entry.threadId,
    scheduleId: entry.scheduleId,
    scheduleNotify: entry.scheduleNotify,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    command: entry.agent ? null : entry.spec.command,
    cwd: entry.spec.cwd,
    environmentId: entry.agent ? 'local' : (entry.spec.environmentId ?? 'local'),
    ...(!entry.agent && entry.spec.arrayTasks ? { arrayTasks: entry.spec.arrayTasks } : {}),
    runs: entry.runs,
    activeMs: activeMsAt(entry, now),
    etaMs: entry.etaMs,
    agent: entry.agent ? jobAgentOf(entry.agent) : null,
  };
}

/** The wire object; built from a row so a listing and a notification always agree. */
export function jobOf(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    status: row.status,
    progress: row.progress,
    detail: row.message,
    attempt: row.attempt,
    maxAttempts: row.maxAttempts,
    maxRuns: maxRunsOf(row.runs, row.maxAttempts, row.manualRetries),
    rerunIfLost: row.kind === 'command' && rerunIfLostOf(row.spec),
    nextRetryAt: row.nextRetryAtMs,
    exitCode: row.exitCode,
    threadId: row.threadId,
    scheduleId: row.scheduleId,
    scheduleNotify: row.scheduleNotify,
    createdAt: row.createdAtMs,
    updatedAt: row.updatedAtMs,
    command: row.command,
    cwd: row.cwd,
    ...(row.kind === 'command' ? placeOf(row.spec) : { environmentId: 'local' }),
    runs: row.runs,
    activeMs: row.activeMs,
    etaMs: row.etaMs,
    agent: agentOfRow(row),
  };
}

/** The first run, the automatic retries and one per manual retry (never fewer than the runs there were). */
function maxRunsOf(runs: number, maxAttempts: number, manualRetries: number): number {
  return Math.max(runs, 1 + maxAttempts + manualRetries);
}

/** Where a stored command job runs, and its array's size if it is one. */
function placeOf(spec: string): { environmentId: string; arrayTasks?: number } {
  try {
    const parsed = JSON.parse(spec) as CommandSpec;
    return { environmentId: parsed.environmentId ?? 'local', ...(parsed.arrayTasks ? { arrayTasks: parsed.arrayTasks } : {}) };
  } catch {
    return { environmentId: 'local' };
  }
}

function rerunIfLostOf(spec: string): boolean {
  try {
    return (JSON.parse(spec) as CommandSpec).rerunIfLost === true;
  } catch {
    return false;
  }
}

function agentOfRow(row: JobRow): Job['agent'] {
  if (row.kind !== 'agent') return null;
  const spec = parseAgentSpec(row.spec);
  return spec ? jobAgentOf(spec) : null;
}
