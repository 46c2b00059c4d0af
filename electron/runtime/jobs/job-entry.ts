import type { Job, JobCreateCommandParams, JobKind } from '../../../shared/protocol/index.js';
import type { SandboxPolicy, SupervisedProcess } from '../../exec/index.js';
import type { JobRow } from '../../store/job-store.js';
import { encodePersistedDetail, fromStored, type JobStateRecord } from './job-state.js';
import type { EtaEstimator, OutputProgressParser } from './output-progress.js';
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
  };
}

/** The live part of a run in this process. */
export interface LiveRun {
  readonly run: number;
  process: SupervisedProcess | null;
  cancelRequested: boolean;
  readonly outputParser: OutputProgressParser | null;
  readonly eta: EtaEstimator;
  /** Progress waiting for the job's next commit slot. */
  pendingProgress: number | null | undefined;
  progressTimer: ReturnType<typeof setTimeout> | null;
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
  /** Aborts the wait for approval (cancel, delete, quit). */
  approvalWait: AbortController | null;
  exitCode: number | null;
  runs: number;
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
    command: entry.agent ? null : entry.spec.command,
    cwd: entry.spec.cwd,
    runs: entry.runs,
    activeMs: activeMsAt(entry, now),
    etaMs: entry.etaMs,
    queueOrder: entry.queueOrder,
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
    approvalWait: null,
    exitCode: row.exitCode,
    runs: row.runs,
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
    nextRetryAt: state.retry.nextRetryAt,
    exitCode: entry.exitCode,
    threadId: entry.threadId,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    command: entry.agent ? null : entry.spec.command,
    cwd: entry.spec.cwd,
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
    nextRetryAt: row.nextRetryAtMs,
    exitCode: row.exitCode,
    threadId: row.threadId,
    createdAt: row.createdAtMs,
    updatedAt: row.updatedAtMs,
    command: row.command,
    cwd: row.cwd,
    runs: row.runs,
    activeMs: row.activeMs,
    etaMs: row.etaMs,
    agent: agentOfRow(row),
  };
}

function agentOfRow(row: JobRow): Job['agent'] {
  if (row.kind !== 'agent') return null;
  const spec = parseAgentSpec(row.spec);
  return spec ? jobAgentOf(spec) : null;
}
