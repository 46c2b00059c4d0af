import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { RuntimeEventEnvelope } from '../../../shared/protocol/events.js';
import { serverNotifications } from '../../../shared/protocol/registry.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import {
  activeTurnId,
  applyEvent,
  CONVERSATION_METHODS,
  conversationFrom,
  deriveRows,
  emptyConversation,
  isDelta,
  keepStreaming,
  turnInputText,
  type Change,
  type ConversationData,
  type ConversationEvent,
  type ConversationMethod,
  type ConversationRow,
} from './conversation-model.js';
import { describeRequestError, type DescribedError } from '../format/request-errors.js';
import { FrameBatcher, type FrameScheduler } from './frame-batcher.js';
import { showRequestError } from './toast-store.js';

/** Whether the open thread's conversation has arrived. */
export type ConversationLoad = 'idle' | 'loading' | 'ready' | 'failed';

export interface ConversationState {
  readonly threadId: string | null;
  readonly load: ConversationLoad;
  readonly loadError: string | null;
  /** Items and turns; mutated in place, announced by `revision` (see ConversationData). */
  readonly data: ConversationData;
  /** Bumped after every batch of changes. */
  readonly revision: number;
  readonly rows: readonly ConversationRow[];
  /** The running turn, which Stop interrupts and new messages steer. */
  readonly activeTurnId: string | null;
  readonly stopping: boolean;
  /** Bumped when the person sends a message: the list jumps back to the newest output. */
  readonly followRequest: number;
  /** Why the last message could not be sent; shown once, above the composer, until the next send. */
  readonly sendError: DescribedError | null;
  /** The model picked for the next turn, per thread (null: the thread's current model). */
  readonly modelChoice: Readonly<Record<string, string>>;
  /** Opens a thread: loads it with thread/resume and follows its notifications. */
  open(threadId: string | null): Promise<void>;
  /** Sends a message: starts a turn, or steers the running one. Resolves false when it was not sent. */
  send(text: string): Promise<boolean>;
  stop(): Promise<void>;
  /**
   * Sends the text of the newest turn again after it failed: the failed turn is
   * rolled back first, so the message is not shown twice. Older turns cannot be retried.
   */
  retry(turnId: string): Promise<void>;
  dismissSendError(): void;
  /** Asks the agent to pick up a turn that was stopped or cut off (e.g. by a restart). */
  continueInterrupted(): Promise<void>;
  /** Drops a thread's newest turn (thread/rollback), reloading the conversation when it is open. */
  rollbackLastTurn(threadId: string): Promise<void>;
  chooseModel(threadId: string, model: string | null): void;
}

/** The most events one events/replay page asks for; longer gaps take several pages. */
const REPLAY_LIMIT = 10_000;

/**
 * The open conversation. Notifications for it are queued and applied once per
 * animation frame; loads hold the queue so notifications that raced with the
 * request are applied on top of its answer (the model's rules make that
 * safe). After a reconnect it refetches with thread/read and replays the
 * events it missed, so a reply that kept streaming meanwhile is whole.
 */
export function createConversationStore(
  client: WheelhouseClient,
  scheduler?: FrameScheduler,
): UseBoundStore<StoreApi<ConversationState>> {
  /** Increments on every load, so a stale answer is dropped. */
  let generation = 0;
  /** The newest seq applied to this conversation; events at or below it are already in. */
  let appliedSeq = 0;
  /**
   * The seq the last load's answer already reflects: the text and output
   * streamed so far are in its items, so deltas at or below it are not added
   * again (other events apply idempotently, whenever they arrive).
   */
  let snapshotSeq = 0;

  const batcher = new FrameBatcher<ConversationEvent>((batch) => commit(batch), scheduler);

  const store = create<ConversationState>()((set, get) => ({
    threadId: null,
    load: 'idle',
    loadError: null,
    data: emptyConversation(),
    revision: 0,
    rows: [],
    activeTurnId: null,
    stopping: false,
    followRequest: 0,
    sendError: null,
    modelChoice: {},

    open: async (threadId) => {
      if (threadId === get().threadId && get().load !== 'failed') return;
      const gen = ++generation;
      batcher.hold();
      batcher.clear();
      set({ threadId, load: threadId ? 'loading' : 'idle', loadError: null, stopping: false, sendError: null });
      install(emptyConversation(), []);
      snapshotSeq = 0;
      if (!threadId) {
        batcher.release();
        return;
      }
      try {
        const result = await client.request('thread/resume', { threadId });
        if (gen !== generation) return;
        // Everything queued since the request went out may predate the answer: apply it all, idempotently.
        appliedSeq = 0;
        snapshotSeq = result.eventSeq;
        install(conversationFrom(result.items, result.thread.turns), batcher.release());
        set({ load: 'ready' });
      } catch (error) {
        if (gen !== generation) return;
        batcher.release();
        set({ load: 'failed', loadError: error instanceof Error ? error.message : String(error) });
      }
    },

    send: async (text) => {
      const { threadId } = get();
      const trimmed = text.trim();
      if (!threadId || trimmed.length === 0) return false;
      batcher.flushNow();
      const input = [{ type: 'text' as const, text }];
      const running = get().activeTurnId;
      set((state) => ({ followRequest: state.followRequest + 1, sendError: null }));
      try {
        if (running) {
          await client.request('turn/steer', { threadId, expectedTurnId: running, input });
        } else {
          const model = get().modelChoice[threadId];
          const { turn } = await client.request('turn/start', { threadId, input, ...(model ? { model } : {}) });
          if (get().threadId === threadId) batcher.push({ method: 'turn/started', params: { threadId, turn }, seq: null });
        }
        return true;
      } catch (error) {
        if (get().threadId === threadId) set({ sendError: describeRequestError(error) });
        return false;
      }
    },

    stop: async () => {
      const { threadId, activeTurnId: turnId } = get();
      if (!threadId || !turnId) return;
      set({ stopping: true });
      try {
        await client.request('turn/interrupt', { threadId, turnId });
      } catch (error) {
        showRequestError(error);
      } finally {
        set({ stopping: false });
      }
    },

    retry: async (turnId) => {
      const { threadId, data } = get();
      if (!threadId || newestTurnId(data) !== turnId) return;
      const text = turnInputText(data, turnId);
      if (text === null) return;
      try {
        await client.request('thread/rollback', { threadId, numTurns: 1 });
        if (get().threadId === threadId) await refetch(threadId);
      } catch (error) {
        if (get().threadId === threadId) set({ sendError: describeRequestError(error) });
        return;
      }
      if (get().threadId === threadId) await get().send(text);
    },

    dismissSendError: () => set({ sendError: null }),

    continueInterrupted: async () => {
      if (!canContinue(get().data) || get().activeTurnId !== null) return;
      await get().send(CONTINUE_MESSAGE);
    },

    rollbackLastTurn: async (threadId) => {
      try {
        await client.request('thread/rollback', { threadId, numTurns: 1 });
        if (get().threadId === threadId) await refetch(threadId);
      } catch (error) {
        showRequestError(error);
      }
    },

    chooseModel: (threadId, model) =>
      set((state) => {
        const next = { ...state.modelChoice };
        if (model === null) delete next[threadId];
        else next[threadId] = model;
        return { modelChoice: next };
      }),
  }));

  /** Replaces the conversation, then applies events that arrived meanwhile (in log order, each once). */
  function install(data: ConversationData, pending: readonly ConversationEvent[]): void {
    store.setState((state) => ({ data, rows: deriveRows(data), revision: state.revision + 1, activeTurnId: activeTurnId(data) }));
    if (pending.length > 0) commit(pending);
  }

  /** Applies a batch of events with one store commit. */
  function commit(batch: readonly ConversationEvent[]): void {
    const { data } = store.getState();
    let change: Change = 'none';
    for (const event of batch) {
      if (event.seq !== null) {
        if (event.seq <= appliedSeq) continue;
        appliedSeq = event.seq;
        if (event.seq <= snapshotSeq && isDelta(event)) continue;
      }
      const result = applyEvent(data, event);
      if (result === 'structure' || (result === 'content' && change === 'none')) change = result;
    }
    if (change === 'none') return;
    store.setState((state) => ({
      revision: state.revision + 1,
      ...(change === 'structure' ? { rows: deriveRows(data), activeTurnId: activeTurnId(data) } : {}),
    }));
  }

  /**
   * Reloads the open thread with thread/read, keeping replies still
   * streaming, and replays what was missed since `afterSeq` (a reconnect).
   */
  async function refetch(threadId: string, afterSeq = 0): Promise<void> {
    const gen = ++generation;
    batcher.hold();
    try {
      const read = await client.request('thread/read', { threadId, includeTurns: true });
      if (gen !== generation) return;
      const next = conversationFrom(read.items, read.thread.turns);
      let missed: ConversationEvent[] = [];
      let reloaded = false;
      if (afterSeq > 0 && activeTurnId(next) !== null) {
        // A full page may have more behind it: page on from its last seq until a short one.
        let cursor = afterSeq;
        for (;;) {
          const replay = await client.request('events/replay', { afterSeq: cursor, threadId, limit: REPLAY_LIMIT });
          if (gen !== generation) return;
          if (replay.reset) {
            // The log no longer holds all we missed: a replay would leave holes in the
            // streamed text. Start over from the thread as read; live events continue it.
            missed = [];
            reloaded = true;
            break;
          }
          for (const envelope of replay.events) {
            const event = fromEnvelope(envelope);
            if (event) missed.push(event);
          }
          const last = replay.events.at(-1);
          if (replay.events.length < REPLAY_LIMIT || !last || last.seq <= cursor) break;
          cursor = last.seq;
        }
      }
      if (!reloaded) keepStreaming(store.getState().data, next);
      snapshotSeq = read.eventSeq;
      // After a reload every queued live event applies (idempotently), as on open.
      appliedSeq = reloaded ? 0 : afterSeq;
      const pending = [...missed, ...batcher.release()].sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity));
      install(next, pending);
      store.setState({ load: 'ready', loadError: null });
    } catch (error) {
      if (gen !== generation) return;
      install(store.getState().data, batcher.release());
      throw error;
    }
  }

  for (const method of CONVERSATION_METHODS) {
    client.on(method, (params, seq) => {
      if (params.threadId !== store.getState().threadId) return;
      batcher.push({ method, params, seq } as ConversationEvent);
    });
  }

  client.onReady(() => {
    const { threadId, load } = store.getState();
    if (!threadId) return;
    if (load === 'failed') {
      void store.getState().open(threadId);
      return;
    }
    const afterSeq = appliedSeq;
    void refetch(threadId, afterSeq).catch(showRequestError);
  });

  return store;
}

/** What "Continue" sends: the agent has the whole thread, so this is enough to resume. */
export const CONTINUE_MESSAGE = 'Continue where you left off.';

/** Whether the newest turn was interrupted (stopped, or cut off by a restart) rather than finished or out of budget. */
export function canContinue(data: ConversationData): boolean {
  const id = newestTurnId(data);
  const turn = id === null ? undefined : data.turns.get(id);
  return turn?.status === 'interrupted' && turn.error?.kind !== 'budgetExhausted';
}

/** The id of the thread's newest turn (turns are kept in the order they started). */
export function newestTurnId(data: ConversationData): string | null {
  let newest: string | null = null;
  for (const id of data.turns.keys()) newest = id;
  return newest;
}

/** A logged event as a conversation event, if it is one and its payload has the declared shape. */
function fromEnvelope(envelope: RuntimeEventEnvelope): ConversationEvent | null {
  const method = envelope.event;
  if (!isConversationMethod(method)) return null;
  const parsed = serverNotifications[method].params.safeParse(envelope.payload);
  return parsed.success ? ({ method, params: parsed.data, seq: envelope.seq } as ConversationEvent) : null;
}

function isConversationMethod(method: string): method is ConversationMethod {
  return (CONVERSATION_METHODS as readonly string[]).includes(method);
}
