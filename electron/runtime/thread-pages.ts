import {
  RpcError,
  type HandlerParamsOf,
  type ResultOf,
  type ThreadItem,
  type ThreadItemEntry,
  type Turn,
  type TurnItemsView,
} from '../../shared/protocol/index.js';
import { decodeListCursor, encodeListCursor, type ListPosition } from './list-cursor.js';
import type { ThreadManager } from './thread-manager.js';

/** Codex's page sizes for turns when the client names none. */
const DEFAULT_TURNS_PAGE = 25;
const DEFAULT_ITEMS_PAGE = 100;

type TurnsPage = ResultOf<'thread/turns/list'>;

/**
 * Codex's paged history over the thread's stored turns and items (with a running turn's items as
 * they are now): `thread/turns/list`, `thread/items/list`, and the cursors thread/resume answers
 * with. A cursor names its entry by id (found again on every call, so turns added later never move
 * it) and its ordinal when it was made; a cursor whose entry is gone (rolled back) is refused.
 */
export class ThreadPages {
  constructor(private readonly threads: Pick<ThreadManager, 'read'>) {}

  turns(params: HandlerParamsOf<'thread/turns/list'>): TurnsPage {
    const turns = this.threads.read({ threadId: params.threadId, includeTurns: true }).thread.turns;
    const scope = turnsScope(params.threadId);
    const anchor = params.cursor ? decodeListCursor('thread/turns/list', scope, params.cursor) : null;
    const page = pageOf('thread/turns/list', turns.map((turn) => ({ id: turn.id, entry: turn })), anchor, params.sortDirection ?? 'desc', params.limit ?? DEFAULT_TURNS_PAGE);
    const itemsView = params.itemsView ?? 'summary';
    return {
      data: page.entries.map((turn) => withItemsView(turn, itemsView)),
      nextCursor: page.next ? encodeListCursor(scope, page.next) : null,
      backwardsCursor: page.back ? encodeListCursor(scope, page.back) : null,
    };
  }

  items(params: HandlerParamsOf<'thread/items/list'>): ResultOf<'thread/items/list'> {
    const read = this.threads.read({ threadId: params.threadId, includeTurns: true });
    const turnId = params.turnId ?? null;
    if (turnId !== null && !read.thread.turns.some((turn) => turn.id === turnId)) {
      throw RpcError.invalidParams(`invalid params for thread/items/list: turnId: thread ${params.threadId} has no turn ${turnId}`);
    }
    const entries = read.thread.turns
      .filter((turn) => turnId === null || turn.id === turnId)
      .flatMap((turn) => turn.items.map((item) => ({ id: item.id, entry: entryOf(item, turn.id) })));
    const scope = itemsScope(params.threadId, turnId);
    const anchor = this.itemsAnchor(params, scope, turnId, entries);
    const page = pageOf('thread/items/list', entries, anchor, params.sortDirection ?? 'asc', params.limit ?? DEFAULT_ITEMS_PAGE);
    return {
      data: page.entries,
      nextCursor: page.next ? encodeListCursor(scope, page.next) : null,
      backwardsCursor: page.back ? encodeListCursor(scope, page.back) : null,
    };
  }

  /** thread/resume's cursors: each pages back (`sortDirection: "desc"`) from the newest turn or item, that one included. */
  backwardsCursors(threadId: string, turns: readonly Turn[]): { turnsBackwardsCursor: string | null; itemsBackwardsCursor: string | null } {
    const lastTurn = turns.at(-1);
    const items = turns.flatMap((turn) => turn.items);
    const lastItem = items.at(-1);
    return {
      turnsBackwardsCursor: lastTurn ? encodeListCursor(turnsScope(threadId), { at: turns.length - 1, id: lastTurn.id, inclusive: true }) : null,
      itemsBackwardsCursor: lastItem ? encodeListCursor(itemsScope(threadId, null), { at: items.length - 1, id: lastItem.id, inclusive: true }) : null,
    };
  }

  /** A string cursor, or Codex's item anchor (an item of `turnId`, itself not listed). */
  private itemsAnchor(
    params: HandlerParamsOf<'thread/items/list'>,
    scope: string,
    turnId: string | null,
    entries: readonly { id: string }[],
  ): ListPosition | null {
    const cursor = params.cursor ?? null;
    if (cursor === null) return null;
    if (typeof cursor === 'string') return decodeListCursor('thread/items/list', scope, cursor);
    if (turnId === null) throw RpcError.invalidParams('invalid params for thread/items/list: cursor: an item anchor needs the turnId it belongs to');
    const at = entries.findIndex((entry) => entry.id === cursor.itemId);
    if (at < 0) throw RpcError.invalidParams(`invalid params for thread/items/list: cursor: turn ${turnId} has no item ${cursor.itemId}`);
    return { at, id: cursor.itemId, inclusive: false };
  }
}

const turnsScope = (threadId: string) => `turns:${threadId}`;
const itemsScope = (threadId: string, turnId: string | null) => (turnId === null ? `items:${threadId}` : `items:${threadId}/${turnId}`);

interface Page<T> {
  readonly entries: T[];
  readonly next: ListPosition | null;
  readonly back: ListPosition | null;
}

/**
 * One page of a listing in its stored order, from an anchor (by id) in `direction`; as Codex's
 * pages: `next` after the last entry, `back` at the first one, included again.
 */
function pageOf<T>(method: string, all: readonly { id: string; entry: T }[], anchor: ListPosition | null, direction: 'asc' | 'desc', limit: number): Page<T> {
  let indexes = all.map((_, index) => index);
  if (anchor) {
    const at = all.findIndex((candidate) => candidate.id === anchor.id);
    if (at < 0) throw RpcError.invalidParams(`invalid params for ${method}: cursor: what it points at is no longer in the thread (rolled back?); list from the start`);
    indexes = indexes.filter((index) => (direction === 'asc' ? index > at : index < at) || (anchor.inclusive && index === at));
  }
  if (direction === 'desc') indexes.reverse();
  const chosen = indexes.slice(0, limit);
  const positionAt = (index: number, inclusive: boolean): ListPosition => ({ at: index, id: all[index]!.id, inclusive });
  const first = chosen[0];
  const last = chosen.at(-1);
  return {
    entries: chosen.map((index) => all[index]!.entry),
    next: indexes.length > limit && last !== undefined ? positionAt(last, false) : null,
    back: first !== undefined ? positionAt(first, true) : null,
  };
}

/** Codex's item views of a turn: every item, its first user message and last agent message, or none. */
function withItemsView(turn: Turn, view: TurnItemsView): Turn {
  if (view === 'full') return { ...turn, itemsView: 'full' };
  if (view === 'notLoaded') return { ...turn, items: [], itemsView: 'notLoaded' };
  const items: ThreadItem[] = [];
  const firstUser = turn.items.find((item) => item.type === 'userMessage');
  const lastAgent = turn.items.findLast((item) => item.type === 'agentMessage');
  if (firstUser) items.push(firstUser);
  if (lastAgent) items.push(lastAgent);
  return { ...turn, items, itemsView: 'summary' };
}

function entryOf(item: ThreadItem, turnId: string): ThreadItemEntry {
  return { item, turnId, startedAtMs: item.startedAtMs, completedAtMs: item.completedAtMs, outputDeferred: false };
}
