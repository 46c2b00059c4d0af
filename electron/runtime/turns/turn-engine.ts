import {
  ITEM_CODEX_NULLS,
  RpcError,
  type HandlerParamsOf,
  type ResultOf,
  type ThreadGoal,
  type ThreadItem,
  type TokenUsageBreakdown,
  type Turn,
  type TurnFailure,
} from '../../../shared/protocol/index.js';
import type { TurnRecord } from '../../store/turn-store.js';
import type { EventLog } from '../event-log.js';
import type { GoalManager } from '../goal-manager.js';
import type { ThreadManager } from '../thread-manager.js';
import { previewOf, toWireTurn } from '../thread-mapper.js';
import type { ToolTable } from '../tools/tool-table.js';
import type { ModelBinder } from '../../model/types.js';
import { addUsage, ZERO_USAGE, type ActiveTurn, type ReviewTurnRequest } from '../active-turn.js';
import { runTurn, storePendingInput, type TurnOutcome } from './turn-runner.js';

import { requireDirectory } from '../working-directory.js';
import { redactTurnError } from '../../model/secret-redaction.js';
import { hookContextOf } from '../hooks/turn-hooks.js';
import type { HookDispatcher } from '../hooks/hook-dispatcher.js';

export interface TurnEngineDeps {
  readonly threads: ThreadManager;
  readonly events: EventLog;
  readonly goals: GoalManager;
  readonly tools: ToolTable<ActiveTurn>;
  readonly bindModel: ModelBinder;
  readonly newId: () => string;
  readonly now: () => number;
  readonly onInternalError?: (message: string, error: unknown) => void;
  /** How long turn/interrupt waits for the turn to wind down. */
  readonly interruptTimeoutMs?: number;
  /** Every API key the runtime knows, cut out of a turn's error before it is stored or sent. */
  readonly knownSecrets?: () => Promise<readonly string[]>;
  /** Called once a turn has ended (completed, interrupted or failed) and the thread is idle again. */
  readonly onTurnEnded?: (threadId: string, turnId: string) => void;
  /** Configured hooks: turn start and end here, tool use in the tool dispatcher. */
  readonly hooks: HookDispatcher;
}

/**
 * Starts, steers and interrupts turns (seed 002). One active turn per thread;
 * the turn runs in the background and reports through notifications.
 */
export class TurnEngine {
  private readonly active = new Map<string, ActiveTurn>();
  private readonly usageCache = new Map<string, TokenUsageBreakdown>();

  constructor(private readonly deps: TurnEngineDeps) {}

  start(params: HandlerParamsOf<'turn/start'>): ResultOf<'turn/start'> {
    const userText = params.input.map((i) => i.text).join('\n');
    return this.begin('turn/start', params, userText, null, (turnId, now) => ({
      type: 'userMessage',
      id: this.deps.newId(),
      turnId,
      createdAtMs: now,
      startedAtMs: now,
      completedAtMs: now,
      content: params.input,
      ...ITEM_CODEX_NULLS.userMessage,
    }));
  }

  /**
   * A review turn (Codex's `review/start`): it opens with an enteredReviewMode item naming
   * what is reviewed (`hint`) instead of a user message, and asks the model `review.prompt`.
   */
  startReview(threadId: string, hint: string, review: ReviewTurnRequest): ResultOf<'turn/start'> {
    return this.begin('review/start', { threadId }, hint, review, (turnId, now) => ({
      type: 'enteredReviewMode',
      id: this.deps.newId(),
      turnId,
      createdAtMs: now,
      startedAtMs: now,
      completedAtMs: now,
      review: hint,
    }));
  }

  private begin(
    method: 'turn/start' | 'review/start',
    params: { readonly threadId: string; readonly cwd?: string | null | undefined; readonly model?: string | null | undefined },
    userText: string,
    review: ReviewTurnRequest | null,
    firstItem: (turnId: string, now: number) => ThreadItem,
  ): ResultOf<'turn/start'> {
    const { record, store } = this.deps.threads.requireUnarchived(params.threadId, method);
    const running = this.active.get(record.id);
    if (running) {
      throw RpcError.because(
        'thread.busy',
        `thread ${record.id} already has a running turn (${running.id}); steer it with turn/steer or stop it first`,
        { activeTurnId: running.id },
      );
    }
    this.deps.goals.assertCanStart(record.id);
    const now = this.deps.now();
    const turnId = this.deps.newId();
    const cwd = params.cwd ? requireDirectory(method, params.cwd) : record.cwd;
    const model = params.model ?? null;
    const turnRecord: TurnRecord = {
      id: turnId,
      threadId: record.id,
      ordinal: store.turns.nextOrdinal(record.id),
      status: 'inProgress',
      model: model ?? record.model,
      error: null,
      usage: null,
      startedAtMs: now,
      completedAtMs: null,
    };
    const userItem = firstItem(turnId, now);
    const scope = { threadId: record.id, turnId, ephemeral: record.ephemeral };
    const wireTurn = toWireTurn(turnRecord, [userItem]);
    // The turn's rows and its announcement land together.
    this.deps.events.commit(store, () => {
      store.turns.upsert(turnRecord);
      store.items.append(record.id, userItem);
      store.threads.update(record.id, {
        status: 'running',
        updatedAtMs: now,
        ...(record.preview === '' ? { preview: previewOf(userText) } : {}),
        ...(model ? { model } : {}),
        ...(params.cwd ? { cwd } : {}),
      });
      store.checkpoints.save({
        threadId: record.id,
        checkpointId: 'latest',
        reason: 'thread_message',
        state: { turnId, messageId: userItem.id, preview: previewOf(userText) },
        createdAtMs: now,
      });
      this.deps.events.publish('thread/status/changed', { threadId: record.id, status: { type: 'active', activeFlags: [] } }, scope);
      this.deps.events.publish('turn/started', { threadId: record.id, turn: wireTurn }, scope);
      this.publishUserItem({ threadId: record.id, id: turnId, ephemeral: record.ephemeral }, userItem);
    });
    const turn: ActiveTurn = {
      id: turnId,
      threadId: record.id,
      store,
      ephemeral: record.ephemeral,
      cwd,
      ordinal: turnRecord.ordinal,
      startedAtMs: now,
      controller: new AbortController(),
      pendingInput: [],
      liveItems: new Map(),
      model: model ?? record.model,
      usage: ZERO_USAGE,
      done: Promise.resolve(),
      review,
    };
    this.active.set(record.id, turn);
    this.deps.threads.markLoaded(record.id);
    this.deps.threads.setActiveTurn(record.id, turnId);
    turn.done = this.run(turn, userText);
    return { turn: wireTurn };
  }

  steer(params: HandlerParamsOf<'turn/steer'>): ResultOf<'turn/steer'> {
    this.deps.threads.requireUnarchived(params.threadId, 'turn/steer');
    const turn = this.active.get(params.threadId);
    if (!turn) throw RpcError.because('turn.notRunning', `no turn is running in thread ${params.threadId}; start one with turn/start`, { activeTurnId: null });
    if (turn.id !== params.expectedTurnId) {
      throw RpcError.because(
        'turn.notRunning',
        `expectedTurnId ${params.expectedTurnId} is not the running turn (${turn.id})`,
        { activeTurnId: turn.id },
      );
    }
    if (turn.controller.signal.aborted) {
      throw RpcError.invalidRequest(`turn ${turn.id} is stopping; send the message as a new turn`);
    }
    const at = this.deps.now();
    const item: ThreadItem = {
      type: 'userMessage',
      id: this.deps.newId(),
      turnId: turn.id,
      createdAtMs: at,
      startedAtMs: at,
      completedAtMs: at,
      content: params.input,
      ...ITEM_CODEX_NULLS.userMessage,
    };
    // Durable before it is acknowledged: a crash must not lose what the client was told was taken.
    this.deps.events.commit(turn.store, () => {
      turn.store.pending.save('steer', turn.threadId, item);
      this.publishUserItem(turn, item);
    });
    turn.pendingInput.push(item);
    return { turnId: turn.id };
  }

  async interrupt(params: HandlerParamsOf<'turn/interrupt'>): Promise<ResultOf<'turn/interrupt'>> {
    this.deps.threads.require(params.threadId);
    const turn = this.active.get(params.threadId);
    if (!turn || turn.id !== params.turnId) {
      throw RpcError.because('turn.notRunning', `turn ${params.turnId} is not running in thread ${params.threadId}`, { activeTurnId: this.active.get(params.threadId)?.id ?? null });
    }
    turn.controller.abort();
    const timeoutMs = this.deps.interruptTimeoutMs ?? 10_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      turn.done.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) throw RpcError.internal(`turn ${turn.id} did not stop within ${timeoutMs} ms`);
    return {};
  }

  activeTurnId(threadId: string): string | null {
    return this.active.get(threadId)?.id ?? null;
  }

  /** The running turn's items not yet stored, as they are now (see `ActiveTurn.liveItems`). */
  liveItems(threadId: string): ThreadItem[] {
    const turn = this.active.get(threadId);
    return turn ? [...turn.liveItems.values()].map((current) => current()) : [];
  }

  /** Interrupts every running turn and waits for them (shutdown). */
  async stopAll(): Promise<void> {
    const turns = [...this.active.values()];
    for (const turn of turns) turn.controller.abort();
    await Promise.allSettled(turns.map((t) => t.done));
  }

  /** Aborts every running turn without waiting (hard shutdown). */
  abortAll(): void {
    for (const turn of this.active.values()) turn.controller.abort();
  }

  /** Drops cached usage totals of a thread (after rollback). */
  forgetUsage(threadId: string): void {
    this.usageCache.delete(threadId);
  }

  /** Tokens used by a thread's finished turns. */
  threadUsage(threadId: string): TokenUsageBreakdown {
    const cached = this.usageCache.get(threadId);
    if (cached) return cached;
    const { store } = this.deps.threads.require(threadId);
    const total = store.turns
      .list(threadId)
      .reduce((sum, t) => (t.usage ? addUsage(sum, t.usage) : sum), ZERO_USAGE);
    this.usageCache.set(threadId, total);
    return total;
  }

  private async run(turn: ActiveTurn, prompt: string): Promise<void> {
    // Let turn/start's response go out before the first notification of the run.
    await Promise.resolve();
    try {
      await this.deps.hooks.turnStarted(hookContextOf(turn), prompt);
      const outcome: TurnOutcome = await runTurn(turn, {
        ...this.deps,
        threadUsage: (threadId) => this.threadUsage(threadId),
      });
      const ended = await this.withoutSecrets(outcome);
      this.finish(turn, ended);
      // After turn/completed: a slow Stop hook must not hold the turn open.
      void this.deps.hooks
        .turnEnded(hookContextOf(turn), ended.status)
        .catch((error: unknown) => this.deps.onInternalError?.(`Stop hooks of turn ${turn.id} failed`, error));
    } catch (error) {
      // Only reachable when the store was closed under a running turn (a hard
      // shutdown); the next start marks the turn interrupted.
      this.active.delete(turn.threadId);
      this.deps.onInternalError?.(`turn ${turn.id} could not be saved`, error);
    }
  }

  /** The error of a turn is the one text from outside (the provider) that reaches the log, the database and clients. */
  private async withoutSecrets(outcome: TurnOutcome): Promise<TurnOutcome> {
    if (outcome.status === 'completed' || outcome.error === null) return outcome;
    const secrets = (await this.deps.knownSecrets?.().catch(() => [])) ?? [];
    return { ...outcome, error: redactTurnError(outcome.error, secrets) };
  }

  private finish(turn: ActiveTurn, outcome: TurnOutcome): void {
    const now = this.deps.now();
    const error: TurnFailure | null = outcome.status === 'completed' ? null : outcome.error;
    const record: TurnRecord = {
      id: turn.id,
      threadId: turn.threadId,
      ordinal: turn.ordinal,
      status: outcome.status,
      model: turn.model,
      error,
      usage: turn.usage,
      startedAtMs: turn.startedAtMs,
      completedAtMs: now,
    };
    const threadUsage = addUsage(this.threadUsage(turn.threadId), turn.usage);
    const scope = { threadId: turn.threadId, turnId: turn.id, ephemeral: turn.ephemeral };
    // The turn's end and its announcement land together: a client that saw turn/completed finds it in the log after any crash.
    this.deps.events.commit(turn.store, () => {
      // Steer input the model never saw still belongs to the conversation.
      storePendingInput(turn);
      turn.store.turns.upsert(record);
      turn.store.threads.update(turn.threadId, { status: outcome.status === 'failed' ? 'failed' : 'idle', updatedAtMs: now });
      turn.store.checkpoints.save({
        threadId: turn.threadId,
        checkpointId: 'latest',
        reason: `turn_${outcome.status}`,
        state: { turnId: turn.id, status: outcome.status, usage: turn.usage },
        createdAtMs: now,
      });
      this.deps.goals.addTime(turn.threadId, turn.id, Math.round((now - turn.startedAtMs) / 1000));
      this.active.delete(turn.threadId);
      const failed = outcome.status === 'failed';
      this.deps.threads.setActiveTurn(turn.threadId, null, failed);
      const items = turn.store.items.list(turn.threadId).filter((i): i is ThreadItem => i.turnId === turn.id && i.type !== 'forkMarker');
      const wireTurn: Turn = toWireTurn(record, items);
      const status = () => this.deps.events.publish('thread/status/changed', { threadId: turn.threadId, status: this.deps.threads.statusOf(turn.threadId) }, scope);
      // Codex's order: a failure shows on the thread (`systemError`), then its error is announced on
      // its own (`willRetry: false`), before its result is unread; a success is unread before the
      // thread is idle again; both before the turn is announced complete.
      if (failed) {
        status();
        if (wireTurn.error) this.deps.events.publish('error', { threadId: turn.threadId, turnId: turn.id, error: wireTurn.error, willRetry: false }, scope);
      }
      if (hasResultToRead(outcome, items, this.deps.goals.get(turn.threadId))) this.deps.threads.publishResult(turn.store, turn.threadId, turn.id, scope);
      if (!failed) status();
      this.deps.events.publish('turn/completed', { threadId: turn.threadId, turn: wireTurn }, scope);
    });
    this.usageCache.set(turn.threadId, threadUsage);
    this.deps.onTurnEnded?.(turn.threadId, turn.id);
  }

  private publishUserItem(turn: Pick<ActiveTurn, 'threadId' | 'id' | 'ephemeral'>, item: ThreadItem): void {
    const scope = { threadId: turn.threadId, turnId: turn.id, itemId: item.id, ephemeral: turn.ephemeral };
    const at = this.deps.now();
    this.deps.events.publish('item/started', { threadId: turn.threadId, turnId: turn.id, item, startedAtMs: at }, scope);
    this.deps.events.publish('item/completed', { threadId: turn.threadId, turnId: turn.id, item, completedAtMs: at, contentTokenCount: null }, scope);
  }
}

/**
 * Whether an ended turn left the person something to read (Codex's rule): a
 * failure; a reply with text, unless the thread's goal is still active (the
 * work goes on by itself); an interrupted turn's error or partial reply.
 */
function hasResultToRead(outcome: TurnOutcome, items: readonly ThreadItem[], goal: ThreadGoal | null): boolean {
  const reply = items.findLast((item) => item.type === 'agentMessage');
  const replyText = reply?.type === 'agentMessage' ? reply.text : null;
  switch (outcome.status) {
    case 'failed':
      return true;
    case 'completed':
      return replyText !== null && replyText.trim() !== '' && goal?.status !== 'active';
    default:
      return outcome.error !== null || replyText !== null;
  }
}
