import os from 'node:os';
import {
  JOB_LIST_DEFAULT_LIMIT,
  RpcError,
  type HandlerParamsOf,
  type Job,
  type JobCreateParams,
  type ResultOf,
  type ScheduleNotify,
} from '../../../shared/protocol/index.js';
import type { DetachedEnvironment, DetachedRunHandle, DetachedRunState, ProcessSupervisor, SupervisedProcess } from '../../exec/index.js';
import type { JobRunRow } from '../../store/job-store.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';
import { systemClock, type JobClock } from './job-clock.js';
import { JobCommits } from './job-commits.js';
import { entryOf, jobOf, jobOfEntry, type CommandSpec, type JobEntry } from './job-entry.js';
import { JobLogs } from './job-logs.js';
import { PERSON, WAITING_FOR_APPROVAL, type JobAdmission, type JobApprovals, type JobRequester } from './job-approvals.js';
import { validateJobRequest, type JobRequest } from './job-creation.js';
import { JobCommandRunner } from './job-command-runner.js';
import { recoverAgentJob, recoverCommandJob, type RecoveryParts } from './job-recovery.js';
import { AgentRunner, type AgentJobParts } from './agent-runner.js';
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
  /** Throws the typed error for an environment id that does not exist (environment/list); without it only `local` exists. */
  readonly checkEnvironment?: (environmentId: string) => void;
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

const notFound = (jobId: string) => RpcError.because('job.notFound', `job not found: ${jobId}`, { jobId });
const refuse = (entry: JobEntry, action: string, why: string) =>
  RpcError.because('job.wrongState', `cannot ${action} job ${entry.state.id}: ${why}`, { jobId: entry.state.id, status: entry.state.status, action });

/**
 * Seed 000's JobManager with the parts the seed left out: retries that run at
 * their time (also after a restart), a concurrency limit with a FIFO queue,
 * real processes through the supervisor, and batched, durable-first commits.
 * Jobs with somewhere to go are held in memory; finished ones live in the store.
 */
export class JobEngine {
  private readonly entries = new Map<string, JobEntry>();
  private readonly clock: JobClock;
  private readonly commits: JobCommits;
  private readonly runner: JobCommandRunner;
  private readonly environment: DetachedEnvironment;
  private readonly recovery: RecoveryParts;
  private readonly agents: AgentRunner | null;
  readonly logs: JobLogs;
  private readonly concurrency: number;
  private nextQueueOrder: number;
  private stopped = false;
  /** Runs started and not yet ended (each holds a slot, paused ones too). */
  private liveRuns = 0;
  private dispatchScheduled: ReturnType<typeof setImmediate> | null = null;

  constructor(private readonly options: JobEngineOptions) {
    this.clock = options.clock ?? systemClock;
    this.concurrency = options.concurrency ?? os.availableParallelism();
    const onError = options.onError ?? (() => undefined);
    this.commits = new JobCommits(options.store.jobs, () => this.clock.now(), (job) => this.announce(job), onError);
    this.logs = new JobLogs(options.store.jobs);
    this.environment = options.environment ?? options.supervisor.detached;
    this.runner = new JobCommandRunner({
      supervisor: options.supervisor,
      environment: this.environment,
      events: options.events,
      clock: this.clock,
      commits: this.commits,
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      onRunEnded: (entry) => this.afterRun(entry),
      onError,
    });
    this.agents = options.agents
      ? new AgentRunner({
          ...options.agents,
          events: options.events,
          clock: this.clock,
          commits: this.commits,
          onRunEnded: (entry) => this.afterRun(entry),
          onError,
        })
      : null;
    this.nextQueueOrder = options.store.jobs.maxQueueOrder() + 1;
    this.recovery = {
      store: options.store.jobs,
      commits: this.commits,
      logs: this.logs,
      runner: this.runner,
      agents: this.agents,
      environment: this.environment,
      reattach: (entry, row, handle, state, activeSince, now) => this.reattach(entry, row, handle, state, activeSince, now),
    };
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
      this.entries.set(entry.state.id, entry);
      if (entry.kind === 'command') recoverCommandJob(this.recovery, entry, row, now);
      else recoverAgentJob(this.recovery, entry, now);
      if (entry.state.status === 'failed' && !entry.live) this.armRetry(entry);
      // Its question ended with the process that asked it: ask again.
      if (entry.spec.approval && (entry.state.status === 'queued' || entry.state.status === 'paused')) {
        entry.state.detail = WAITING_FOR_APPROVAL;
        this.commits.mark(entry);
        this.awaitApproval(entry);
      }
    }
    this.commits.flush();
    this.dispatch();
  }

  /**
   * Follows a run that was started before (after a restart, or found alive where none should be).
   * `activeSince`: when it would have started had it never paused (see rowOf).
   */
  private reattach(entry: JobEntry, row: JobRunRow, handle: DetachedRunHandle, state: DetachedRunState['state'], activeSince: number, now: number): void {
    entry.runs = row.run;
    if (entry.state.status === 'queued') {
      // The app died between starting it and recording "running": it had started.
      entry.activeMs = 0;
      entry.state.detail = null;
      machine.setRunning(entry.state, now);
    }
    if (entry.state.status === 'running') {
      // Its running time, also while nobody watched, is now − `activeSince` (the stored total included the stretch so far).
      entry.activeMs = 0;
      entry.activeSince = activeSince;
    } else {
      entry.activeSince = null;
    }
    entry.state.updatedAt = now;
    machine.pushHistory(entry.state, 'reattached');
    this.commits.mark(entry);
    this.liveRuns += 1;
    this.runner.reattach(entry, row, handle, state);
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
    if (origin && (this.entries.has(origin.jobId) || this.options.store.jobs.get(origin.jobId))) {
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
    this.entries.set(entry.state.id, entry);
    this.commits.mark(entry);
    await this.commits.committed();
    // 4. Announce: the commit announced job/updated once written (JobCommits); the answer is that same durable job.
    const job = this.jobNow(entry);
    // 5. Run: when a slot is free, or once the person approves.
    if (entry.spec.approval) this.awaitApproval(entry);
    else this.dispatch();
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

  private newEntry(state: machine.JobStateRecord, kind: JobEntry['kind'], spec: JobEntry['spec'], threadId: string | null, agent: JobEntry['agent'], origin: ScheduledOrigin | null = null): JobEntry {
    return {
      state,
      kind,
      spec,
      agent,
      threadId,
      scheduleId: origin?.scheduleId ?? null,
      scheduleNotify: origin?.notify ?? null,
      approvalWait: null,
      exitCode: null,
      runs: 0,
      manualRetries: 0,
      continueRun: false,
      queueOrder: this.nextQueueOrder++,
      activeMs: 0,
      activeSince: null,
      etaMs: null,
      live: null,
      retryTimer: null,
      lastCommitAt: -Infinity,
    };
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
    const entry: JobEntry = {
      state,
      kind: 'command',
      spec: { ...origin.spec, command: origin.command, cwd: origin.cwd },
      agent: null,
      threadId: origin.threadId,
      scheduleId: null,
      scheduleNotify: null,
      approvalWait: null,
      exitCode: null,
      runs: 1,
      manualRetries: 0,
      continueRun: false,
      queueOrder: this.nextQueueOrder++,
      activeMs: Math.max(0, now - child.startedAt),
      activeSince: now,
      etaMs: null,
      live: null,
      retryTimer: null,
      lastCommitAt: -Infinity,
    };
    machine.setRunning(state, now);
    state.detail = 'started by the agent; kept running after its turn ended';
    this.entries.set(id, entry);
    this.liveRuns += 1;
    this.runner.adopt(entry, child);
    return (await this.commit(entry)).job;
  }

  /** Jobs not finished yet that run in `environmentId` (an environment in use cannot be removed). */
  usingEnvironment(environmentId: string): { jobId: string; name: string; status: string }[] {
    return [...this.entries.values()]
      .filter((entry) => entry.kind === 'command' && entry.spec.environmentId === environmentId && stillGoing(entry))
      .map((entry) => ({ jobId: entry.state.id, name: entry.state.name, status: entry.state.status }));
  }

  list(params: HandlerParamsOf<'job/list'>): ResultOf<'job/list'> {
    const limit = params.limit ?? JOB_LIST_DEFAULT_LIMIT;
    const statuses = params.status == null ? undefined : Array.isArray(params.status) ? params.status : [params.status];
    const search = params.search?.trim().toLowerCase() || undefined;
    const after = params.cursor ? decodeCursor(params.cursor) : undefined;
    const rows = this.options.store.jobs.list({ ...(statuses ? { statuses } : {}), ...(search ? { search } : {}), ...(after ? { after } : {}), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(jobOf),
      nextCursor: rows.length > limit && last ? Buffer.from(JSON.stringify([last.updatedAtMs, last.id])).toString('base64url') : null,
    };
  }

  async read(jobId: string): Promise<ResultOf<'job/read'>> {
    // What is answered must be durable: a change made a moment ago is written first.
    await this.commits.committed();
    const entry = this.lookup(jobId);
    return { job: this.jobNow(entry), history: entry.state.history.map((h) => ({ ...h, retry: { ...h.retry } })), logTail: this.logs.tail(jobId) };
  }

  log(params: HandlerParamsOf<'job/log'>): ResultOf<'job/log'> {
    const entry = this.lookup(params.jobId);
    return this.logs.read(entry, params.attempt, params.offset ?? 0, params.limit ?? 64 * 1024);
  }

  logLines(params: HandlerParamsOf<'job/log/lines'>): Promise<ResultOf<'job/log/lines'>> {
    return this.logs.lines(this.lookup(params.jobId), params);
  }

  logSearch(params: HandlerParamsOf<'job/log/search'>): Promise<ResultOf<'job/log/search'>> {
    return this.logs.search(this.lookup(params.jobId), params);
  }

  runs(jobId: string): ResultOf<'job/runs'> {
    this.lookup(jobId);
    return this.logs.runs(jobId);
  }

  async pause(jobId: string): Promise<ResultOf<'job/pause'>> {
    const entry = this.lookup(jobId);
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
      if (entry.state.status !== 'running') return { job: this.jobNow(entry) };
      this.stopClock(entry, this.clock.now());
      machine.pause(entry.state, 'paused: no new turns until it is resumed', this.clock.now());
    } else if (status === 'running') {
      try {
        this.runner.pause(entry);
      } catch (error) {
        throw refuse(entry, 'pause', entry.live ? (error as Error).message : 'its process has just ended');
      }
      this.stopClock(entry, now);
      machine.pause(entry.state, null, now);
    } else {
      throw refuse(entry, 'pause', `it is ${status}`);
    }
    return this.commit(entry);
  }

  async resume(jobId: string): Promise<ResultOf<'job/resume'>> {
    const entry = this.lookup(jobId);
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
      entry.queueOrder = this.nextQueueOrder++;
    }
    const result = await this.commit(entry);
    this.dispatch();
    return result;
  }

  async cancel(jobId: string): Promise<ResultOf<'job/cancel'>> {
    const entry = this.lookup(jobId);
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
      return { job: this.jobNow(entry) };
    }
    this.disarmRetry(entry);
    entry.approvalWait?.abort();
    machine.withdrawScheduledRetry(entry.state);
    machine.cancel(entry.state, this.clock.now(), scheduledRetry ? 'cancelled before its retry' : 'cancelled before it started');
    const result = await this.commit(entry);
    this.settle(entry);
    return result;
  }

  async retry(jobId: string): Promise<ResultOf<'job/retry'>> {
    const entry = this.lookup(jobId);
    const { status } = entry.state;
    if (status !== 'failed' && status !== 'cancelled') throw refuse(entry, 'retry', `it is ${status}; only a failed or cancelled job can be retried`);
    this.disarmRetry(entry);
    // The person's retry is one of its own: a scheduled automatic retry it replaces is given back.
    machine.withdrawScheduledRetry(entry.state);
    entry.manualRetries += 1;
    machine.requeue(entry.state, 'retry_requested', null, this.clock.now());
    entry.queueOrder = this.nextQueueOrder++;
    this.entries.set(jobId, entry);
    const result = await this.commit(entry);
    this.dispatch();
    return result;
  }

  async delete(jobId: string): Promise<ResultOf<'job/delete'>> {
    const entry = this.lookup(jobId);
    if (entry.live) throw refuse(entry, 'delete', `it is ${entry.state.status}; cancel it first`);
    this.disarmRetry(entry);
    entry.approvalWait?.abort();
    await this.commits.committed();
    this.commits.forget(jobId);
    this.entries.delete(jobId);
    this.logs.deleteAll(jobId);
    this.options.store.jobs.delete(jobId);
    // Other clients drop the row (the jobs table no longer has it for a later job/list either).
    this.options.events.publish('job/deleted', { jobId }, { ephemeral: true });
    return { deleted: true };
  }

  /** Jobs with a run in flight (starting, running or paused): what quitting would stop or leave running. */
  runningCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.live) count += 1;
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
    if (this.stopped) return;
    this.stopWork();
    const inFlight = [...this.entries.values()].filter((entry) => entry.live);
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
    if (!this.stopped) {
      this.stopWork();
      for (const entry of this.entries.values()) if (entry.live && !entry.live.process) this.runner.detach(entry);
    }
    this.runner.stop();
    this.agents?.stop();
    this.commits.close();
  }

  private stopWork(): void {
    this.stopped = true;
    if (this.dispatchScheduled) clearImmediate(this.dispatchScheduled);
    this.dispatchScheduled = null;
    for (const entry of this.entries.values()) {
      this.disarmRetry(entry);
      entry.approvalWait?.abort();
    }
  }

  /** A consistent wire object for an entry as it is now. */
  private jobNow(entry: JobEntry): Job {
    return jobOfEntry(entry, this.clock.now());
  }

  private async commit(entry: JobEntry): Promise<{ job: Job }> {
    this.commits.mark(entry);
    await this.commits.committed();
    return { job: this.jobNow(entry) };
  }

  private lookup(jobId: string): JobEntry {
    const live = this.entries.get(jobId);
    if (live) return live;
    const row = this.options.store.jobs.get(jobId);
    if (!row) throw notFound(jobId);
    return entryOf(row);
  }

  private stopClock(entry: JobEntry, now: number): void {
    if (entry.activeSince !== null) entry.activeMs += Math.max(0, now - entry.activeSince);
    entry.activeSince = null;
  }

  /** Starts queued jobs soon (once per turn of the event loop, however many changes asked). */
  private dispatch(): void {
    if (this.stopped || this.dispatchScheduled || this.liveRuns >= this.concurrency) return;
    this.dispatchScheduled = setImmediate(() => {
      this.dispatchScheduled = null;
      this.dispatchNow();
    });
  }

  /** Starts queued jobs, oldest in the queue first, while slots are free. */
  private dispatchNow(): void {
    if (this.stopped || this.liveRuns >= this.concurrency) return;
    const queued: JobEntry[] = [];
    for (const entry of this.entries.values()) if (!entry.live && entry.state.status === 'queued' && !entry.spec.approval) queued.push(entry);
    queued.sort((a, b) => a.queueOrder - b.queueOrder);
    for (const entry of queued.slice(0, this.concurrency - this.liveRuns)) {
      const now = this.clock.now();
      // Never beside an earlier run of the same job that is still alive: that one is followed instead.
      const alive = entry.kind === 'command' && entry.runs > 0 ? this.runner.aliveEarlierRun(this.options.store.jobs.runs(entry.state.id)) : null;
      if (alive) {
        this.options.onError?.(`job ${entry.state.id}`, new Error(`run ${alive.row.run} is still alive; following it instead of starting another`));
        this.reattach(entry, alive.row, alive.handle, 'running', now, now);
        continue;
      }
      const continuing = entry.continueRun;
      if (!continuing) entry.runs += 1;
      entry.continueRun = false;
      this.liveRuns += 1;
      if (entry.kind === 'agent' && this.agents) {
        if (!continuing) entry.activeMs = 0;
        entry.activeSince = now;
        entry.etaMs = null;
        entry.exitCode = null;
        entry.state.progress = null;
        entry.state.detail = null;
        machine.setRunning(entry.state, now);
        this.commits.mark(entry);
        this.agents.start(entry);
      } else {
        // "running" once its identity is durable (job-command-runner).
        this.runner.start(entry);
      }
    }
  }

  /** A run ended (its transition is made): arm a retry, free the slot, start the next. */
  private afterRun(entry: JobEntry): void {
    this.liveRuns -= 1;
    this.stopClock(entry, this.clock.now());
    if (this.stopped) return;
    if (entry.state.status === 'failed') this.armRetry(entry);
    this.settle(entry);
    this.dispatch();
  }

  /** Finished jobs leave memory; the store has them. */
  private settle(entry: JobEntry): void {
    const { status } = entry.state;
    const done = status === 'completed' || status === 'cancelled' || (status === 'failed' && entry.state.retry.nextRetryAt === null);
    if (done && !entry.live) this.entries.delete(entry.state.id);
  }

  /** The job waits (queued, or paused meanwhile) until the person answers; a yes lets it start, a no cancels it. */
  private awaitApproval(entry: JobEntry): void {
    const need = entry.spec.approval;
    if (!need || !this.options.approvals || entry.approvalWait) return;
    const wait = new AbortController();
    entry.approvalWait = wait;
    void this.options.approvals
      .ask(entry, need, wait.signal)
      .catch((error: unknown) => {
        this.options.onError?.(`approval of job ${entry.state.id}`, error);
        return 'ended' as const;
      })
      .then((answer) => {
        if (entry.approvalWait === wait) entry.approvalWait = null;
        if (answer === 'ended' || this.stopped || !this.entries.has(entry.state.id)) return;
        const now = this.clock.now();
        const { approval: _answered, ...approved } = entry.spec;
        entry.spec = approved;
        if (answer === 'declined') {
          machine.cancel(entry.state, now, 'not run: the person declined it');
        } else if (entry.state.status === 'queued') {
          entry.state.detail = null;
          entry.state.updatedAt = now;
          machine.pushHistory(entry.state, 'approved');
        } else if (entry.state.detail === WAITING_FOR_APPROVAL) {
          entry.state.detail = null;
        }
        this.commits.mark(entry);
        this.settle(entry);
        this.dispatch();
      });
  }

  private armRetry(entry: JobEntry): void {
    this.disarmRetry(entry);
    const at = entry.state.retry.nextRetryAt;
    if (at === null || this.stopped) return;
    entry.retryTimer = this.clock.setTimeout(() => {
      entry.retryTimer = null;
      if (this.stopped || entry.state.status !== 'failed') return;
      const attempt = entry.state.retry.attempt;
      machine.requeue(entry.state, 'retrying', `retry ${attempt} of ${entry.state.retry.maxAttempts}`, this.clock.now());
      // The retry goes back to the seed's attempt count; requeue cleared only the schedule.
      entry.queueOrder = this.nextQueueOrder++;
      this.commits.mark(entry);
      this.dispatch();
    }, Math.max(0, at - this.clock.now()));
  }

  private disarmRetry(entry: JobEntry): void {
    if (entry.retryTimer !== null) this.clock.clearTimeout(entry.retryTimer);
    entry.retryTimer = null;
  }

  private announce(job: Job): void {
    // The jobs table is the durable record (job/list after a restart); the event itself need
    // only outlive a reconnect, which the in-memory log covers.
    this.options.events.publish('job/updated', { job }, { ephemeral: true });
  }
}

function decodeCursor(cursor: string): { updatedAtMs: number; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return { updatedAtMs: value[0], id: value[1] };
  } catch {
    // Reported below.
  }
  throw RpcError.invalidParams('invalid params for job/list: cursor: not a cursor returned by job/list');
}
