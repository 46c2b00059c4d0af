import { textInput, type AnyNotification, type HandlerParamsOf, type PendingApproval, type ResultOf, type ThreadGoal, type Turn } from '../../../shared/protocol/index.js';
import type { ApprovalBroker } from '../approvals/approval-broker.js';
import type { EventLog } from '../event-log.js';
import { REPORT_PROGRESS, UPDATE_GOAL, type GoalManager } from '../goal-manager.js';
import type { ThreadManager } from '../thread-manager.js';
import { applyGoal, type AgentSpec } from './agent-spec.js';
import type { JobClock } from './job-clock.js';
import type { JobCommits } from './job-commits.js';
import { activeMsAt, newLiveRun, type JobEntry, type LiveRun } from './job-entry.js';
import * as machine from './job-state.js';
import { CONTINUE_PROMPT, FIRST_TURN_PROMPT } from '../../../shared/agent-job-prompts.js';

/** The turns of an agent job's thread: started, watched and stopped. */
export interface AgentTurns {
  activeTurnId(threadId: string): string | null;
  start(params: HandlerParamsOf<'turn/start'>): ResultOf<'turn/start'>;
  interrupt(params: HandlerParamsOf<'turn/interrupt'>): Promise<ResultOf<'turn/interrupt'>>;
}

/** The runtime parts an agent job drives: its thread, turns, goal and approvals. */
export interface AgentJobParts {
  readonly threads: ThreadManager;
  /** What an agent job needs of the turn engine (declared here, so jobs/ never imports turns/; TurnEngine fits it). */
  readonly turns: AgentTurns;
  readonly goals: GoalManager;
  readonly approvals: ApprovalBroker;
}

export interface AgentRunnerOptions extends AgentJobParts {
  readonly events: EventLog;
  readonly clock: JobClock;
  readonly commits: JobCommits;
  readonly onRunEnded: (entry: JobEntry) => void;
  readonly onError: (message: string, error: unknown) => void;
}

/** One agent job's run in this process. */
interface AgentRun {
  readonly entry: JobEntry & { readonly agent: AgentSpec; readonly threadId: string };
  readonly live: LiveRun;
  /** The turn this job started and is waiting for; null between turns. */
  turnId: string | null;
  /** When that turn started (its running time counts against the time budget). */
  turnStartedAt: number;
  pauseRequested: boolean;
  cancelRequested: boolean;
  timeBudgetHit: boolean;
  budgetTimer: ReturnType<typeof setTimeout> | null;
  /** The reason the agent gave with update_goal "blocked". */
  blockedReason: string | null;
}

/**
 * Runs `agent` jobs: a thread with a goal (seed 001) that takes turn after
 * turn unattended until the goal is complete, blocked, paused or out of
 * budget. It learns what happened from the runtime's own notifications
 * (turn/completed, thread/goal/updated, item/completed) and from approval
 * requests, so the turn engine knows nothing about jobs.
 */
export class AgentRunner {
  /** Live runs by thread id. */
  private readonly runs = new Map<string, AgentRun>();
  private stopped = false;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly options: AgentRunnerOptions) {
    this.unsubscribe.push(options.events.subscribe((notification) => this.onNotification(notification)));
    this.unsubscribe.push(options.approvals.watch((pending, withdrawn) => this.onApproval(pending, withdrawn)));
  }

  /** Makes the job's thread (its folder, approval policy and sandbox) and goal; a bad folder is an error here, before any job exists. */
  /** An agent job's thread, named for the job, with the job's objective as its goal (the goal's budget taken into `spec`). */
  createThread(spec: AgentSpec, objective: string, name: string): string {
    const { thread } = this.options.threads.start(
      { cwd: spec.cwd, approvalPolicy: spec.approvalPolicy, ...(spec.sandbox ? { sandbox: spec.sandbox } : {}) },
      'api',
    );
    this.options.threads.setName({ threadId: thread.id, name: `Job: ${name}` });
    const { goal } = this.options.goals.set({ threadId: thread.id, objective, tokenBudget: spec.tokenBudget });
    applyGoal(spec, goal);
    return thread.id;
  }

  start(entry: JobEntry): void {
    const live = newLiveRun(entry.runs, false);
    entry.live = live;
    if (!entry.agent || !entry.threadId) {
      this.end(entry, live, () => machine.failWithoutRetry(entry.state, 'this agent job has lost its thread or goal', this.now()));
      return;
    }
    const run: AgentRun = {
      entry: entry as AgentRun['entry'],
      live,
      turnId: null,
      turnStartedAt: 0,
      pauseRequested: false,
      cancelRequested: false,
      timeBudgetHit: false,
      budgetTimer: null,
      blockedReason: null,
    };
    this.runs.set(entry.threadId, run);
    setImmediate(() => this.begin(run));
  }

  private begin(run: AgentRun): void {
    if (!this.isCurrent(run)) return;
    const { agent, threadId } = run.entry;
    try {
      const prefixes = agent.allowCommands.map((command) => command.split(/\s+/).filter(Boolean));
      this.options.approvals.grantUpFront(threadId, prefixes);
      // A job started again (resume, retry, restart) takes up a goal it had set aside.
      const goal = this.options.goals.get(threadId);
      if (goal && (goal.status === 'paused' || goal.status === 'usageLimited')) this.options.goals.set({ threadId, status: 'active' });
    } catch (error) {
      this.end(run.entry, run.live, () => machine.failWithoutRetry(run.entry.state, `cannot continue: ${(error as Error).message}`, this.now()));
      return;
    }
    this.next(run);
  }

  /** Decides what the goal needs now: another turn, or the end of the job. */
  private next(run: AgentRun): void {
    if (!this.isCurrent(run) || run.pauseRequested || run.cancelRequested || run.turnId !== null) return;
    const { entry } = run;
    const { agent, threadId } = entry;
    const now = this.now();
    let goal: ThreadGoal | null;
    try {
      goal = this.options.goals.get(threadId);
    } catch (error) {
      this.end(entry, run.live, () => machine.failWithoutRetry(entry.state, `its thread is gone: ${(error as Error).message}`, now));
      return;
    }
    if (!goal) {
      this.end(entry, run.live, () => machine.failWithoutRetry(entry.state, 'its goal was cleared in the conversation', now));
      return;
    }
    applyGoal(agent, goal);
    if (goal.status === 'active' && agent.timeBudgetMs !== null && agent.timeUsedMs >= agent.timeBudgetMs) goal = this.limitByTime(run);
    switch (goal.status) {
      case 'complete':
        entry.state.detail = `goal complete after ${agent.turns} ${agent.turns === 1 ? 'turn' : 'turns'}`;
        this.end(entry, run.live, () => machine.complete(entry.state, now));
        return;
      case 'blocked':
        this.end(entry, run.live, () => machine.failWithoutRetry(entry.state, `blocked: ${run.blockedReason ?? 'the agent cannot go on without you'}`, now));
        return;
      case 'budgetLimited':
        this.end(entry, run.live, () => machine.failWithoutRetry(entry.state, budgetSpentText(agent), now));
        return;
      case 'usageLimited':
        this.end(entry, run.live, () => machine.fail(entry.state, 'usage limited: the model provider refused more requests for now', now));
        return;
      case 'paused':
        this.pauseItself(run, 'paused: its goal was paused in the conversation; resume the job to go on');
        return;
      case 'active':
        break;
    }
    if (agent.turns >= agent.maxTurns) {
      this.end(entry, run.live, () => machine.failWithoutRetry(entry.state, `stopped after ${agent.turns} turns without reaching the goal`, now));
      return;
    }
    if (this.options.turns.activeTurnId(threadId) !== null) {
      // Someone else's turn (the person typing in the thread): the next turn starts when it ends.
      this.setDetail(run, 'waiting for the turn running in its thread');
      return;
    }
    let turn: Turn;
    try {
      const text = agent.turns === 0 ? FIRST_TURN_PROMPT(agent.objective) : CONTINUE_PROMPT;
      turn = this.options.turns.start({ threadId, input: [textInput(text)] }).turn;
    } catch (error) {
      this.end(entry, run.live, () => machine.fail(entry.state, `could not start a turn: ${(error as Error).message}`, now));
      return;
    }
    run.turnId = turn.id;
    run.turnStartedAt = now;
    agent.turns += 1;
    this.setDetail(run, `turn ${agent.turns}`);
    this.armTimeBudget(run);
  }

  private armTimeBudget(run: AgentRun): void {
    const { agent, threadId } = run.entry;
    if (agent.timeBudgetMs === null) return;
    const left = Math.max(0, agent.timeBudgetMs - agent.timeUsedMs);
    run.budgetTimer = setTimeout(() => {
      run.budgetTimer = null;
      if (run.turnId === null || !this.isCurrent(run)) return;
      run.timeBudgetHit = true;
      this.options.turns.interrupt({ threadId, turnId: run.turnId }).catch(() => undefined);
    }, left);
  }

  /** The turn is over: its running time joins the job's. */
  private countTurnTime(run: AgentRun): void {
    if (run.turnId === null) return;
    run.turnId = null;
    run.entry.agent.timeUsedMs += Math.max(0, this.now() - run.turnStartedAt);
    this.options.commits.mark(run.entry);
  }

  private limitByTime(run: AgentRun): ThreadGoal {
    const { goal } = this.options.goals.set({ threadId: run.entry.threadId, status: 'budgetLimited' });
    applyGoal(run.entry.agent, goal);
    return goal;
  }

  private onNotification(notification: AnyNotification): void {
    if (this.runs.size === 0) return;
    switch (notification.method) {
      case 'turn/completed': {
        const run = this.runs.get(notification.params.threadId);
        if (run) this.turnEnded(run, notification.params.turn);
        return;
      }
      case 'thread/goal/updated': {
        const run = this.runs.get(notification.params.threadId);
        if (run && applyGoal(run.entry.agent, notification.params.goal)) this.options.commits.mark(run.entry);
        return;
      }
      case 'item/completed': {
        const run = this.runs.get(notification.params.threadId);
        const { item } = notification.params;
        if (!run || item.type !== 'dynamicToolCall' || item.success !== true) return;
        const args = (item.arguments ?? {}) as { percent?: unknown; status?: unknown; reason?: unknown };
        if (item.tool === REPORT_PROGRESS && typeof args.percent === 'number') this.progress(run, args.percent);
        if (item.tool === UPDATE_GOAL && args.status === 'blocked') run.blockedReason = typeof args.reason === 'string' && args.reason ? args.reason : null;
        return;
      }
      default:
        return;
    }
  }

  private turnEnded(run: AgentRun, turn: Turn): void {
    if (!this.isCurrent(run)) return;
    if (run.turnId !== turn.id) {
      // A turn the person ran in the job's thread ended: the job can go on.
      if (run.turnId === null) setImmediate(() => this.next(run));
      return;
    }
    this.countTurnTime(run);
    if (run.budgetTimer) clearTimeout(run.budgetTimer);
    run.budgetTimer = null;
    // Pause and cancel finish their own transitions once the turn is down.
    if (run.pauseRequested || run.cancelRequested) return;
    const now = this.now();
    if (run.timeBudgetHit) {
      this.limitByTime(run);
      this.end(run.entry, run.live, () => machine.failWithoutRetry(run.entry.state, budgetSpentText(run.entry.agent), now));
      return;
    }
    if (turn.status === 'completed' || turn.error?.kind === 'budgetExhausted') {
      setImmediate(() => this.next(run));
    } else if (turn.status === 'interrupted') {
      this.pauseItself(run, 'paused: its turn was stopped in the conversation; resume the job to go on');
    } else {
      const message = turn.error?.message ?? 'the turn failed';
      if (turn.error?.kind === 'rateLimited') {
        try {
          this.options.goals.set({ threadId: run.entry.threadId, status: 'usageLimited' });
        } catch {
          // The job's detail says it anyway.
        }
      }
      this.end(run.entry, run.live, () => machine.fail(run.entry.state, `turn ${run.entry.agent.turns} failed: ${message}`, now));
    }
  }

  /** A command (or patch, or MCP tool call) of the job's thread waits for the person: the job says so until it is answered or ended. */
  private onApproval(pending: PendingApproval, withdrawn: AbortSignal): void {
    const run = this.runs.get(pending.params.threadId);
    if (!run || !this.isCurrent(run)) return;
    const { agent } = run.entry;
    const command = pending.method === 'item/commandExecution/requestApproval' ? (pending.params.command ?? null) : null;
    const what =
      command ??
      (pending.method === 'item/commandExecution/requestApproval'
        ? 'a command'
        : pending.method === 'mcpServer/elicitation/request'
          ? `MCP server ${pending.params.serverName}'s tool`
          : 'a file change');
    agent.waitingApproval = { requestId: pending.requestId, command };
    this.setDetail(run, `waiting for approval: ${what}`, 'waiting_for_approval');
    withdrawn.addEventListener(
      'abort',
      () => {
        if (agent.waitingApproval?.requestId !== pending.requestId) return;
        agent.waitingApproval = null;
        if (this.isCurrent(run) && run.entry.state.status === 'running') this.setDetail(run, `turn ${agent.turns}`, 'approval_settled');
      },
      { once: true },
    );
  }

  private progress(run: AgentRun, percent: number): void {
    const { entry } = run;
    if (entry.state.status !== 'running') return;
    const now = this.now();
    machine.updateProgress(entry.state, percent, entry.state.detail, now);
    entry.etaMs = run.live.eta.estimate(entry.state.progress, activeMsAt(entry, now));
    this.options.commits.mark(entry);
  }

  /** A new detail; with a phase it also goes into the job's timeline. */
  private setDetail(run: AgentRun, detail: string, phase?: string): void {
    const { state } = run.entry;
    if (state.detail === detail) return;
    state.detail = detail;
    state.updatedAt = this.now();
    if (phase) machine.pushHistory(state, phase);
    this.options.commits.mark(run.entry);
  }

  /** The job pauses by itself (its turn was stopped, its goal paused); it keeps its slot and resumes on job/resume. */
  private pauseItself(run: AgentRun, detail: string): void {
    const { entry } = run;
    const now = this.now();
    entry.activeMs = activeMsAt(entry, now);
    entry.activeSince = null;
    run.pauseRequested = true;
    machine.pause(entry.state, detail, now);
    this.options.commits.mark(entry);
  }

  /** job/pause: the current turn is interrupted and no new one starts. */
  async pause(entry: JobEntry): Promise<void> {
    const run = entry.threadId ? this.runs.get(entry.threadId) : undefined;
    if (!run) return;
    run.pauseRequested = true;
    await this.stopTurn(run);
  }

  /** job/resume of a run that is still live: turns go on. */
  resume(entry: JobEntry): void {
    const run = entry.threadId ? this.runs.get(entry.threadId) : undefined;
    if (!run) return;
    run.pauseRequested = false;
    setImmediate(() => this.begin(run));
  }

  /** job/cancel (or quitting with "stop"): the current turn is interrupted, then the job ends cancelled. */
  async cancel(entry: JobEntry, detail = 'cancelled'): Promise<void> {
    const run = entry.threadId ? this.runs.get(entry.threadId) : undefined;
    if (!run) return;
    run.cancelRequested = true;
    run.live.cancelRequested = true;
    await this.stopTurn(run);
    const now = this.now();
    this.end(entry, run.live, () => machine.cancel(entry.state, now, detail));
  }

  private async stopTurn(run: AgentRun): Promise<void> {
    if (run.budgetTimer) clearTimeout(run.budgetTimer);
    run.budgetTimer = null;
    const turnId = run.turnId;
    if (turnId === null) return;
    try {
      await this.options.turns.interrupt({ threadId: run.entry.threadId, turnId });
    } catch {
      // It ended on its own meanwhile.
    }
    this.countTurnTime(run);
  }

  /** After a restart: the detail of a job whose run was cut off (an approval it waited for has been ended). */
  recoveredDetail(entry: JobEntry): string | null {
    if (!entry.agent || entry.runs === 0) return null;
    const waited = entry.agent.waitingApproval;
    entry.agent.waitingApproval = null;
    const approval = waited ? `; the approval it waited for (${waited.command ?? 'a command'}) was ended` : '';
    return `interrupted: Wheelhouse stopped during run ${entry.runs}${approval}`;
  }

  /** App quit: nothing more turns into transitions; the runtime stops the turns. */
  stop(): void {
    this.stopped = true;
    for (const run of this.runs.values()) if (run.budgetTimer) clearTimeout(run.budgetTimer);
    for (const off of this.unsubscribe.splice(0)) off();
  }

  private isCurrent(run: AgentRun): boolean {
    return !this.stopped && run.entry.live === run.live && this.runs.get(run.entry.threadId) === run;
  }

  /** The run's final transition, then the engine frees its slot. */
  private end(entry: JobEntry, live: LiveRun, transition: () => void): void {
    if (entry.live !== live || this.stopped) return;
    transition();
    entry.etaMs = null;
    entry.live = null;
    live.markEnded();
    if (entry.threadId) {
      const run = this.runs.get(entry.threadId);
      if (run?.live === live) {
        if (run.budgetTimer) clearTimeout(run.budgetTimer);
        this.runs.delete(entry.threadId);
      }
    }
    if (entry.agent) entry.agent.waitingApproval = null;
    this.options.commits.mark(entry);
    this.options.onRunEnded(entry);
  }

  private now(): number {
    return this.options.clock.now();
  }
}

function budgetSpentText(agent: AgentSpec): string {
  if (agent.timeBudgetMs !== null && agent.timeUsedMs >= agent.timeBudgetMs) {
    const shown = (ms: number) => (agent.timeBudgetMs! < 10_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`);
    return `time budget spent: ${shown(agent.timeUsedMs)} of ${shown(agent.timeBudgetMs)}`;
  }
  return `token budget spent: ${agent.tokensUsed} of ${agent.tokenBudget ?? 0} tokens`;
}
