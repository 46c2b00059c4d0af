import os from 'node:os';
import { RpcError, type EnvironmentKind, type HandlerParamsOf, type Job, type JobCreateParams, type ResultOf, type ScheduleNotify } from '../../../shared/protocol/index.js';
import type { DetachedEnvironment, ProcessSupervisor, SupervisedProcess } from '../../exec/index.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';
import { AgentRunner, type AgentJobParts } from './agent-runner.js';
import { awaitApproval, type ApprovalWaitParts } from './approval-wait.js';
import { PERSON, WAITING_FOR_APPROVAL, type JobAdmission, type JobApprovals, type JobRequester } from './job-approvals.js';
import { systemClock, type JobClock } from './job-clock.js';
import { JobCommandRunner } from './job-command-runner.js';
import { JobCommits } from './job-commits.js';
import { newJobEntry, validateJobRequest, type JobRequest } from './job-creation.js';
import { entryOf, type CommandSpec, type JobEntry } from './job-entry.js';
import { JobLogs } from './job-logs.js';
import { JobQueue, stopClock } from './job-queue.js';
import { JobReads } from './job-reads.js';
import { recoverAgentJob, recoverCommandJob, type RecoveryParts } from './job-recovery.js';
import { JobTable, refuse } from './job-table.js';
import * as machine from './job-state.js';

export interface JobEngineOptions {
  readonly store: StateStore;
  readonly events: EventLog;
  readonly supervisor: ProcessSupervisor;
  /** Where command jobs' runs live so that they outlive the app; default the supervisor's local one. */
  readonly environment?: DetachedEnvironment;
  /** Jobs running at once; default the number of CPU cores. */
  readonly concurrency?: number;
  readonly clock?: JobClock;
  readonly newId: () => string;
  /** SIGTERM → SIGKILL grace when a job is cancelled. */
  readonly killGraceMs?: number;
  readonly onError?: (message: string, error: unknown) => void;
  /** The exec policy and approvals for command jobs; without it every job runs as asked. */
  readonly approvals?: JobApprovals;
  /** What `agent` jobs drive; without it they are refused as not supported. */
  readonly agents?: AgentJobParts;
  /** The kind of an environment (environment/list); throws the typed error for an id that does not exist. Without it only `local` exists. */
  readonly checkEnvironment?: (environmentId: string) => EnvironmentKind;
}

/** A job started for a schedule's slot: the id its claim named, the schedule, its notification policy. */
export interface ScheduledOrigin {
  readonly jobId: string;
  readonly scheduleId: string;
  readonly notify: ScheduleNotify;
}

/** How quitting Wheelhouse ends a job: "stop" cancels it; "keep" lets a detached run go on. */
export interface JobShutdownOptions {
  readonly jobs: 'keep' | 'stop';
}

const STOPPED_AT_QUIT = 'cancelled: stopped when Wheelhouse quit';
const ENDED_AT_QUIT = 'ended when Wheelhouse quit: it ran inside Wheelhouse (a command the agent started), so it could not keep running';

/** Queued, running, paused, or failed with a retry to come. */
const stillGoing = (entry: JobEntry) =>
  entry.state.status === 'queued' || entry.state.status === 'running' || entry.state.status === 'paused' || (entry.state.status === 'failed' && entry.state.retry.nextRetryAt !== null);

/**
 * Seed 000's JobManager with the parts the seed left out: retries that run at
 * their time (also after a restart), a concurrency limit with a FIFO queue,
 * real processes through the supervisor, and batched, durable-first commits.
 * This class is the jobs' life (create, pause, resume, cancel, retry,
 * delete, quit); the queue (job-queue.ts) decides when each runs, the table
 * (job-table.ts) holds them, the reads (job-reads.ts) answer about them.
 */
export class JobEngine {
  private readonly clock: JobClock;
  private readonly commits: JobCommits;
  private readonly runner: JobCommandRunner;
  private readonly agents: AgentRunner | null;
  private readonly table: JobTable;
  private readonly queue: JobQueue;
  private readonly reads: JobReads;
  private readonly recovery: RecoveryParts;
  private readonly approvalWait: ApprovalWaitParts;
  readonly logs: JobLogs;

  constructor(private readonly options: JobEngineOptions) {
    this.clock = options.clock ?? systemClock;
    const onError = options.onError ?? (() => undefined);
    const store = options.store.jobs;
    this.commits = new JobCommits(store, () => this.clock.now(), (job) => this.announce(job), onError);
    this.logs = new JobLogs(store);
    this.table = new JobTable(store, this.commits, this.clock);
    this.reads = new JobReads(this.table, store, this.commits, this.logs);
    const environment: DetachedEnvironment = options.environment ?? options.supervisor.detached;
    this.runner = new JobCommandRunner({
      supervisor: options.supervisor,
      environment,
      events: options.events,
      clock: this.clock,
      commits: this.commits,
      store,
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      onRunEnded: (entry) => this.queue.afterRun(entry),
      onError,
    });
    this.agents = options.agents
      ? new AgentRunner({
          ...options.agents,
          events: options.events,
          clock: this.clock,
          commits: this.commits,
          onRunEnded: (entry) => this.queue.afterRun(entry),
          onError,
        })
      : null;
    this.queue = new JobQueue({
      table: this.table,
      store,
      commits: this.commits,
      clock: this.clock,
      runner: this.runner,
      agents: this.agents,
      concurrency: options.concurrency ?? os.availableParallelism(),
      onError,
    });
    this.recovery = {
      store,
      commits: this.commits,
      logs: this.logs,
      runner: this.runner,
      agents: this.agents,
      environment,
      reattach: (entry, row, handle, state, activeSince, now) => this.queue.reattach(entry, row, handle, state, activeSince, now),
    };
    this.approvalWait = { approvals: options.approvals, table: this.table, queue: this.queue, commits: this.commits, clock: this.clock, onError };
  }

  /**
   * After a restart. A command job's run that had started is re-attached,
   * never started again: alive, it is followed from where streaming had got
   * to; ended meanwhile, the rest of its log and then its real exit are
   * recorded; lost (gone without an exit status), it fails, and runs again
   * only if it was marked safe to and retries are left. A run prepared but
   * never started begins afresh under the same number. An agent job that was
   * running continues its run on its thread as its goal says (agent-runner).
   * Scheduled retries are armed again; questions are asked again.
   */
  recover(): void {
    const now = this.clock.now();
    for (const row of this.options.store.jobs.unfinished()) {
      const entry = entryOf(row);
      this.table.entries.set(entry.state.id, entry);
      if (entry.kind === 'command') recoverCommandJob(this.recovery, entry, row, now);
      else recoverAgentJob(this.recovery, entry, now);
      if (entry.state.status === 'failed' && !entry.live) this.queue.armRetry(entry);
      // Its question ended with the process that asked it: ask again.
      if (entry.spec.approval && (entry.state.status === 'queued' || entry.state.status === 'paused')) {
        entry.state.detail = WAITING_FOR_APPROVAL;
        this.commits.mark(entry);
        awaitApproval(this.approvalWait, entry);
      }
    }
    this.commits.flush();
    this.queue.dispatch();
  }

  /**
   * job/create (and the agent's job_start), in the order it happens:
   * validate → decide → persist → announce → run. Nothing changes before the
   * decision; nobody hears of the job before it is durable.
   * `origin`: a schedule's slot. The job takes the id its claim named (so a restart can tell whether
   * the claimed job was made) and is refused if that id exists already: a slot never runs twice.
   */
  async create(params: JobCreateParams, requester: JobRequester = PERSON, origin: ScheduledOrigin | null = null): Promise<ResultOf<'job/create'>> {
    // 1. Validate: the whole request, before anything is decided or written.
    if (origin && (this.table.entries.has(origin.jobId) || this.options.store.jobs.get(origin.jobId))) {
      throw RpcError.because('schedule.slotStarted', `job ${origin.jobId} exists already: its schedule slot was started before`, { jobId: origin.jobId });
    }
    if (params.kind === 'agent' && !this.agents) {
      throw RpcError.because('job.kindUnsupported', 'agent jobs are not supported by this host: only kind "command" can run', { kind: 'agent' });
    }
    const request = validateJobRequest(params, this.options.checkEnvironment);
    // 2. Decide: the exec policy says whether a command runs as asked, in a sandbox, after the person's approval, or not at all.
    const admission = request.kind === 'command' && this.options.approvals ? await this.options.approvals.admit(request.spec, requester) : null;
    // 3. Persist: an agent job's thread and goal, then the job row, written before anyone hears of it.
    const jobId = origin?.jobId ?? `job-${this.options.newId()}`;
    const entry = request.kind === 'agent' ? this.agentEntry(jobId, request, this.agents!, origin) : this.commandEntry(jobId, request, admission, requester, origin);
    this.table.entries.set(entry.state.id, entry);
    this.commits.mark(entry);
    await this.commits.committed();
    // 4. Announce: the commit announced job/updated once written (JobCommits); the answer is that same durable job.
    const job = this.table.jobNow(entry);
    // 5. Run: when a slot is free, or once the person approves.
    if (entry.spec.approval) awaitApproval(this.approvalWait, entry);
    else this.queue.dispatch();
    return { job };
  }

  private commandEntry(jobId: string, request: Extract<JobRequest, { kind: 'command' }>, admission: JobAdmission | null, requester: JobRequester, origin: ScheduledOrigin | null): JobEntry {
    const spec = { ...request.spec, ...(admission?.sandbox ? { sandbox: admission.sandbox } : {}), ...(admission?.approval ? { approval: admission.approval } : {}) };
    const state = machine.enqueue(jobId, request.name, this.clock.now(), request.maxAttempts);
    if (spec.approval) {
      state.detail = WAITING_FOR_APPROVAL;
      machine.pushHistory(state, 'waiting_for_approval');
    }
    return this.newEntry(state, 'command', spec, requester.kind === 'agent' ? requester.threadId : null, null, origin);
  }

  private agentEntry(jobId: string, request: Extract<JobRequest, { kind: 'agent' }>, agents: AgentRunner, origin: ScheduledOrigin | null): JobEntry {
    const threadId = agents.createThread(request.spec, request.objective, request.name);
    const state = machine.enqueue(jobId, request.name, this.clock.now(), request.maxAttempts);
    return this.newEntry(state, 'agent', { command: '', cwd: request.spec.cwd }, threadId, request.spec, origin);
  }

  private newEntry(state: machine.JobStateRecord, kind: JobEntry['kind'], spec: JobEntry['spec'], threadId: string | null, agent: JobEntry['agent'], origin: ScheduledOrigin | null): JobEntry {
    return newJobEntry({
      state,
      kind,
      spec,
      agent,
      threadId,
      queueOrder: this.table.queueOrder(),
      ...(origin ? { scheduleId: origin.scheduleId, scheduleNotify: origin.notify } : {}),
    });
  }

  /**
   * Makes a job of a process that is already running (the agent's command that
   * outlived its turn): the same process and log, now controllable as a job. It
   * is not retried by itself (maxAttempts 0): it already ran once, as the agent asked.
   */
  async adopt(child: SupervisedProcess, origin: { readonly threadId: string; readonly command: string; readonly cwd: string; readonly spec: Partial<CommandSpec> }): Promise<Job> {
    const now = this.clock.now();
    const id = `job-${this.options.newId()}`;
    const state = machine.enqueue(id, origin.command.slice(0, 120), now, 0);
    const entry = newJobEntry({
      state,
      kind: 'command',
      spec: { ...origin.spec, command: origin.command, cwd: origin.cwd },
      agent: null,
      threadId: origin.threadId,
      queueOrder: this.table.queueOrder(),
      runs: 1,
      activeMs: Math.max(0, now - child.startedAt),
      activeSince: now,
    });
    machine.setRunning(state, now);
    state.detail = 'started by the agent; kept running after its turn ended';
    this.table.entries.set(id, entry);
    this.queue.runAdopted();
    this.runner.adopt(entry, child);
    return (await this.table.commit(entry)).job;
  }

  /** Jobs not finished yet that run in `environmentId` (an environment in use cannot be removed). */
  usingEnvironment(environmentId: string): { jobId: string; name: string; status: string }[] {
    return [...this.table.entries.values()]
      .filter((entry) => entry.kind === 'command' && entry.spec.environmentId === environmentId && stillGoing(entry))
      .map((entry) => ({ jobId: entry.state.id, name: entry.state.name, status: entry.state.status }));
  }

  list(params: HandlerParamsOf<'job/list'>): ResultOf<'job/list'> {
    return this.reads.list(params);
  }

  read(jobId: string): Promise<ResultOf<'job/read'>> {
    return this.reads.read(jobId);
  }

  log(params: HandlerParamsOf<'job/log'>): ResultOf<'job/log'> {
    return this.reads.log(params);
  }

  logLines(params: HandlerParamsOf<'job/log/lines'>): Promise<ResultOf<'job/log/lines'>> {
    return this.reads.logLines(params);
  }

  logSearch(params: HandlerParamsOf<'job/log/search'>): Promise<ResultOf<'job/log/search'>> {
    return this.reads.logSearch(params);
  }

  runs(jobId: string): ResultOf<'job/runs'> {
    return this.reads.runs(jobId);
  }

  async pause(jobId: string): Promise<ResultOf<'job/pause'>> {
    const entry = this.table.lookup(jobId);
    const now = this.clock.now();
    const { status } = entry.state;
    if (status === 'queued' && entry.live) {
      // Its run is being started (it is `running` once its identity is durable, moments from now).
      throw refuse(entry, 'pause', 'it is starting; try again in a moment');
    } else if (status === 'queued') {
      machine.pause(entry.state, 'paused before it started', now);
    } else if (status === 'running' && entry.agent && this.agents && entry.live) {
      // The current turn is interrupted; no new one starts until resume.
      await this.agents.pause(entry);
      if (entry.state.status !== 'running') return { job: this.table.jobNow(entry) };
      stopClock(entry, this.clock.now());
      machine.pause(entry.state, 'paused: no new turns until it is resumed', this.clock.now());
    } else if (status === 'running') {
      try {
        this.runner.pause(entry);
      } catch (error) {
        throw refuse(entry, 'pause', entry.live ? (error as Error).message : 'its process has just ended');
      }
      stopClock(entry, now);
      machine.pause(entry.state, null, now);
    } else {
      throw refuse(entry, 'pause', `it is ${status}`);
    }
    return this.table.commit(entry);
  }

  async resume(jobId: string): Promise<ResultOf<'job/resume'>> {
    const entry = this.table.lookup(jobId);
    if (entry.state.status !== 'paused') throw refuse(entry, 'resume', `it is ${entry.state.status}, not paused`);
    const now = this.clock.now();
    const live = entry.live;
    if (entry.agent && this.agents && live) {
      this.agents.resume(entry);
      entry.activeSince = now;
      machine.resume(entry.state, 'resumed', now);
    } else if (live && (live.handle || live.process?.state === 'paused')) {
      try {
        this.runner.resume(entry);
      } catch {
        throw refuse(entry, 'resume', 'its process has just ended');
      }
      entry.activeSince = now;
      machine.resume(entry.state, null, now);
    } else {
      machine.requeue(entry.state, 'resumed', null, now);
      entry.queueOrder = this.table.queueOrder();
    }
    const result = await this.table.commit(entry);
    this.queue.dispatch();
    return result;
  }

  async cancel(jobId: string): Promise<ResultOf<'job/cancel'>> {
    const entry = this.table.lookup(jobId);
    const { status } = entry.state;
    const scheduledRetry = status === 'failed' && entry.state.retry.nextRetryAt !== null;
    if (status === 'completed' || status === 'cancelled' || (status === 'failed' && !scheduledRetry)) {
      throw refuse(entry, 'cancel', `it has already ended (${status})`);
    }
    if (entry.live) {
      // The run's exit completes the transition (cancelled) once the whole tree is gone.
      if (entry.agent && this.agents) await this.agents.cancel(entry);
      else await this.runner.cancel(entry);
      await this.commits.committed();
      return { job: this.table.jobNow(entry) };
    }
    this.queue.disarmRetry(entry);
    entry.approvalWait?.abort();
    machine.withdrawScheduledRetry(entry.state);
    machine.cancel(entry.state, this.clock.now(), scheduledRetry ? 'cancelled before its retry' : 'cancelled before it started');
    const result = await this.table.commit(entry);
    this.table.settle(entry);
    return result;
  }

  async retry(jobId: string): Promise<ResultOf<'job/retry'>> {
    const entry = this.table.lookup(jobId);
    const { status } = entry.state;
    if (status !== 'failed' && status !== 'cancelled') throw refuse(entry, 'retry', `it is ${status}; only a failed or cancelled job can be retried`);
    this.queue.disarmRetry(entry);
    // The person's retry is one of its own: a scheduled automatic retry it replaces is given back.
    machine.withdrawScheduledRetry(entry.state);
    entry.manualRetries += 1;
    machine.requeue(entry.state, 'retry_requested', null, this.clock.now());
    entry.queueOrder = this.table.queueOrder();
    this.table.entries.set(jobId, entry);
    const result = await this.table.commit(entry);
    this.queue.dispatch();
    return result;
  }

  async delete(jobId: string): Promise<ResultOf<'job/delete'>> {
    const entry = this.table.lookup(jobId);
    if (entry.live) throw refuse(entry, 'delete', `it is ${entry.state.status}; cancel it first`);
    this.queue.disarmRetry(entry);
    entry.approvalWait?.abort();
    await this.commits.committed();
    this.commits.forget(jobId);
    this.table.entries.delete(jobId);
    this.logs.deleteAll(jobId);
    this.options.store.jobs.delete(jobId);
    // Other clients drop the row (the jobs table no longer has it for a later job/list either).
    this.options.events.publish('job/deleted', { jobId }, { ephemeral: true });
    return { deleted: true };
  }

  /** Jobs with a run in flight (starting, running or paused): what quitting would stop or leave running. */
  runningCount(): number {
    let count = 0;
    for (const entry of this.table.entries.values()) if (entry.live) count += 1;
    return count;
  }

  /**
   * App quit. `stop`: every run in flight is cancelled (its whole tree ended)
   * before this resolves. `keep`: command jobs' detached runs go on, no longer
   * followed, and are re-attached at the next start; a run inside the app
   * (an adopted command) cannot and fails, saying so; agent jobs stop here
   * (the runtime stops their turns next) and continue at the next start if
   * their goal is still active. Nothing new starts either way.
   */
  async shutdown(options: JobShutdownOptions = { jobs: 'stop' }): Promise<void> {
    if (this.queue.isStopped) return;
    this.queue.stop();
    const inFlight = [...this.table.entries.values()].filter((entry) => entry.live);
    if (options.jobs === 'stop') {
      await Promise.allSettled(inFlight.map((entry) => (entry.agent && this.agents ? this.agents.cancel(entry, STOPPED_AT_QUIT) : this.runner.cancel(entry, STOPPED_AT_QUIT))));
    } else {
      await Promise.allSettled(
        inFlight.filter((entry) => entry.kind === 'command').map((entry) => (entry.live?.process ? this.runner.endInProcess(entry, ENDED_AT_QUIT) : this.runner.detach(entry))),
      );
    }
    this.runner.stop();
    this.agents?.stop();
    this.commits.close();
  }

  /** The runtime closing at once (a crash-like close): runs are left as they are, detached ones going on. */
  closeNow(): void {
    if (!this.queue.isStopped) {
      this.queue.stop();
      for (const entry of this.table.entries.values()) if (entry.live && !entry.live.process) this.runner.detach(entry);
    }
    this.runner.stop();
    this.agents?.stop();
    this.commits.close();
  }

  private announce(job: Job): void {
    // The jobs table is the durable record (job/list after a restart); the event itself need
    // only outlive a reconnect, which the in-memory log covers.
    this.options.events.publish('job/updated', { job }, { ephemeral: true });
  }
}
