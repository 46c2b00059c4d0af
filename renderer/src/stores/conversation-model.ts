import type { NotificationParamsOf } from '../../../shared/protocol/registry.js';
import type { ConversationItem as StoredItem, ThreadItem, TokenUsageBreakdown, Turn, TurnError, TurnStatus } from '../../../shared/protocol/thread.js';

/**
 * The conversation of one thread as the view shows it, and the pure rules
 * that fold runtime notifications into it. Every rule is idempotent for
 * finished items, so notifications that raced with a thread/read can be
 * applied on top of its answer without doubling anything.
 */

/** An item, and whether it is still streaming. */
/** An item as shown: Codex items plus Wheelhouse's fork marker, and whether it is still streaming. */
export type ConversationItem = StoredItem & { readonly streaming: boolean };

/** A turn as far as the conversation needs it. */
export interface TurnSummary {
  readonly id: string;
  readonly status: TurnStatus;
  readonly error: TurnError | null;
  readonly usage: TokenUsageBreakdown | null;
  readonly model: string | null;
  readonly durationMs: number | null;
  /** The latest retry while the model request is being retried; cleared when output arrives. */
  readonly retrying: { readonly attempt: number; readonly reason: string } | null;
}

/** One row of the message list: an item, or the end of a turn (usage, error, Stopped, or Working…). */
export type ConversationRow =
  | { readonly kind: 'item'; readonly key: string; readonly itemId: string }
  | { readonly kind: 'turnEnd'; readonly key: string; readonly turnId: string };

/** The notifications that change a conversation, with their log seq. */
export type ConversationEvent = {
  [M in ConversationMethod]: { readonly method: M; readonly params: NotificationParamsOf<M>; readonly seq: number | null };
}[ConversationMethod];

export const CONVERSATION_METHODS = [
  'turn/started',
  'turn/completed',
  'turn/retrying',
  'item/started',
  'item/completed',
  'item/agentMessage/delta',
  'item/reasoning/textDelta',
  'item/reasoning/summaryPartAdded',
  'item/reasoning/summaryTextDelta',
  'item/commandExecution/outputDelta',
] as const;

/** Events that add text or output to an item (applying one twice would double it). */
export function isDelta(event: ConversationEvent): boolean {
  return (
    event.method === 'item/agentMessage/delta' ||
    event.method === 'item/reasoning/textDelta' ||
    event.method === 'item/reasoning/summaryPartAdded' ||
    event.method === 'item/reasoning/summaryTextDelta' ||
    event.method === 'item/commandExecution/outputDelta'
  );
}

/** Live command output kept per card; older output is on disk (the item's log). */
const MAX_LIVE_OUTPUT_CHARS = 256 * 1024;
export type ConversationMethod = (typeof CONVERSATION_METHODS)[number];

/**
 * Items in a Map plus their order, turns by id. The maps are mutated in place
 * by `applyEvent` (the store owns the only copy and bumps a revision after
 * each batch); the item and turn objects themselves are never mutated, so a
 * row re-renders exactly when its object changes.
 */
export interface ConversationData {
  readonly items: Map<string, ConversationItem>;
  readonly order: string[];
  readonly turns: Map<string, TurnSummary>;
}

/** What applying events changed: nothing, an item's content only, or the row structure. */
export type Change = 'none' | 'content' | 'structure';

export function emptyConversation(): ConversationData {
  return { items: new Map(), order: [], turns: new Map() };
}

/** The conversation from a thread/read (or resume) answer: every listed item is finished. */
export function conversationFrom(items: readonly StoredItem[], turns: readonly Turn[]): ConversationData {
  const data = emptyConversation();
  // An unfinished item of the running turn (a reply streaming, a command running) goes on taking deltas.
  const running = new Set(turns.filter((turn) => turn.status === 'inProgress').map((turn) => turn.id));
  for (const item of items) {
    if (data.items.has(item.id)) continue;
    const streaming = item.completedAtMs === null && item.turnId !== null && running.has(item.turnId);
    data.items.set(item.id, { ...item, streaming });
    data.order.push(item.id);
  }
  for (const turn of turns) data.turns.set(turn.id, summarize(turn));
  return data;
}

/**
 * Carries over what a refetch cannot know: items still streaming in a turn
 * the runtime still reports as running (they are persisted only when done).
 */
export function keepStreaming(previous: ConversationData, next: ConversationData): void {
  for (const id of previous.order) {
    const item = previous.items.get(id);
    if (!item?.streaming || next.items.has(id) || item.turnId === null) continue;
    if (next.turns.get(item.turnId)?.status !== 'inProgress') continue;
    next.items.set(id, item);
    next.order.push(id);
  }
}

/** Folds one notification into the conversation. */
export function applyEvent(data: ConversationData, event: ConversationEvent): Change {
  switch (event.method) {
    case 'turn/started':
    case 'turn/completed': {
      const { turn } = event.params;
      data.turns.set(turn.id, summarize(turn));
      for (const item of turn.items) upsertFinished(data, item, turn.status !== 'inProgress');
      if (turn.status !== 'inProgress') finishStreaming(data, turn.id);
      return 'structure';
    }
    case 'turn/retrying': {
      const { turnId, attempt, reason } = event.params;
      const turn = data.turns.get(turnId);
      if (!turn) return 'none';
      data.turns.set(turnId, { ...turn, retrying: { attempt, reason } });
      return 'structure';
    }
    case 'item/started': {
      const { item } = event.params;
      clearRetrying(data, event.params.turnId);
      if (data.items.has(item.id)) return 'none';
      data.items.set(item.id, { ...item, streaming: true });
      data.order.push(item.id);
      return 'structure';
    }
    case 'item/completed': {
      const { item } = event.params;
      const known = data.items.has(item.id);
      data.items.set(item.id, { ...item, streaming: false });
      if (known) return 'content';
      data.order.push(item.id);
      return 'structure';
    }
    case 'item/agentMessage/delta': {
      const { itemId, turnId, delta } = event.params;
      const item = data.items.get(itemId);
      if (!item) {
        // Joined mid-reply (opened while it streamed): show what arrives from here on.
        data.items.set(itemId, {
          type: 'agentMessage',
          id: itemId,
          turnId,
          createdAtMs: Date.now(),
          startedAtMs: null,
          completedAtMs: null,
          text: delta,
          delivery: null,
          memoryCitation: null,
          moderation: null,
          phase: null,
          questions: null,
          streaming: true,
        });
        data.order.push(itemId);
        return 'structure';
      }
      if (!item.streaming || item.type !== 'agentMessage') return 'none';
      data.items.set(itemId, { ...item, text: item.text + delta });
      return 'content';
    }
    case 'item/reasoning/textDelta': {
      const { itemId, turnId, delta, contentIndex } = event.params;
      return applyReasoning(data, itemId, turnId, (item) => ({ content: appendAt(item.content, contentIndex, delta) }));
    }
    case 'item/reasoning/summaryPartAdded': {
      const { itemId, turnId, summaryIndex } = event.params;
      return applyReasoning(data, itemId, turnId, (item) => ({ summary: appendAt(item.summary, summaryIndex, '') }));
    }
    case 'item/reasoning/summaryTextDelta': {
      const { itemId, turnId, delta, summaryIndex } = event.params;
      return applyReasoning(data, itemId, turnId, (item) => ({ summary: appendAt(item.summary, summaryIndex, delta) }));
    }
    case 'item/commandExecution/outputDelta': {
      const { itemId, delta } = event.params;
      const item = data.items.get(itemId);
      // A command may outlive its turn: its output keeps coming while it is in progress.
      if (!item || item.type !== 'commandExecution' || item.status !== 'inProgress') return 'none';
      const text = (item.aggregatedOutput ?? '') + delta;
      data.items.set(itemId, { ...item, aggregatedOutput: text.length > MAX_LIVE_OUTPUT_CHARS ? text.slice(-MAX_LIVE_OUTPUT_CHARS) : text });
      return 'content';
    }
    default:
      return assertNever(event);
  }
}

type ReasoningParts = Pick<Extract<ThreadItem, { type: 'reasoning' }>, 'summary' | 'content'>;

/**
 * Applies a reasoning delta (raw text or summary) to its streaming item; one
 * that arrives for an unknown item (the view joined mid-reply) starts it.
 */
function applyReasoning(data: ConversationData, itemId: string, turnId: string, change: (parts: ReasoningParts) => Partial<ReasoningParts>): Change {
  const item = data.items.get(itemId);
  if (!item) {
    const empty: ReasoningParts = { summary: [], content: [] };
    data.items.set(itemId, {
      type: 'reasoning',
      id: itemId,
      turnId,
      createdAtMs: Date.now(),
      startedAtMs: null,
      completedAtMs: null,
      ...empty,
      ...change(empty),
      streaming: true,
    });
    data.order.push(itemId);
    return 'structure';
  }
  if (!item.streaming || item.type !== 'reasoning') return 'none';
  data.items.set(itemId, { ...item, ...change(item) });
  return 'content';
}

/** `parts` with `text` appended to part `index` (empty parts added up to it). */
function appendAt(parts: readonly string[], index: number, text: string): string[] {
  const next = [...parts];
  while (next.length <= index) next.push('');
  next[index] += text;
  return next;
}

/** The rows of the list: each item, and after the last item of each turn, that turn's end row. */
export function deriveRows(data: ConversationData): ConversationRow[] {
  const rows: ConversationRow[] = [];
  let openTurn: string | null = null;
  const closeTurn = () => {
    if (openTurn !== null && data.turns.has(openTurn)) {
      rows.push({ kind: 'turnEnd', key: `turn-end:${openTurn}`, turnId: openTurn });
    }
  };
  for (const id of data.order) {
    const item = data.items.get(id);
    if (!item) continue;
    if (item.turnId !== openTurn) {
      closeTurn();
      openTurn = item.turnId;
    }
    rows.push({ kind: 'item', key: id, itemId: id });
  }
  closeTurn();
  return rows;
}

/** The running turn, if any. */
export function activeTurnId(data: ConversationData): string | null {
  for (const turn of data.turns.values()) if (turn.status === 'inProgress') return turn.id;
  return null;
}

/** The text a person typed to start a turn (what Retry sends again). */
export function turnInputText(data: ConversationData, turnId: string): string | null {
  for (const id of data.order) {
    const item = data.items.get(id);
    if (item?.turnId === turnId && item.type === 'userMessage') return item.content.map((c) => c.text).join('\n');
  }
  return null;
}

function summarize(turn: Turn): TurnSummary {
  return {
    id: turn.id,
    status: turn.status,
    error: turn.error,
    usage: turn.usage,
    model: turn.model,
    durationMs: turn.durationMs,
    retrying: null,
  };
}

function upsertFinished(data: ConversationData, item: ThreadItem, final: boolean): void {
  const known = data.items.get(item.id);
  if (known?.type === 'commandExecution' && item.type === 'commandExecution' && item.status === 'inProgress') {
    // Stored while still running (its call returned): keep the output streamed so far.
    data.items.set(item.id, { ...item, aggregatedOutput: known.aggregatedOutput, streaming: false });
    return;
  }
  if (known && !known.streaming) return;
  data.items.set(item.id, { ...item, streaming: !final && item.type !== 'userMessage' });
  if (!known) data.order.push(item.id);
}

/** A finished turn leaves nothing streaming (its last items may have had no completion of their own). */
function finishStreaming(data: ConversationData, turnId: string): void {
  for (const id of data.order) {
    const item = data.items.get(id);
    if (item?.streaming && item.turnId === turnId) data.items.set(id, { ...item, streaming: false });
  }
}

function clearRetrying(data: ConversationData, turnId: string): void {
  const turn = data.turns.get(turnId);
  if (turn?.retrying) data.turns.set(turnId, { ...turn, retrying: null });
}

function assertNever(value: never): never {
  throw new Error(`unhandled conversation event: ${JSON.stringify(value)}`);
}
