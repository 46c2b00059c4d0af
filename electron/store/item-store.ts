import { ITEM_CODEX_NULLS, withTextElements, type ConversationItem, type ThreadItem } from '../../shared/protocol/index.js';

/** Item rows written before items took Codex's shapes (`toolCall`, since renamed `dynamicToolCall`). */
interface LegacyToolCallItem {
  readonly type: 'toolCall';
  readonly output: string | null;
}
import type { Db } from './database.js';

/** Conversation items, kept in thread order; each row stores the item as JSON. */
export class ItemStore {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly listStmt;
  private readonly nextOrdinalStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(`
      INSERT INTO thread_items (id, thread_id, turn_id, ordinal, type, role, content, item, created_at_ms)
      VALUES (@id, @thread_id, @turn_id, @ordinal, @type, @role, @content, @item, @created_at_ms)`);
    this.updateStmt = db.prepare('UPDATE thread_items SET content = @content, item = @item WHERE id = @id');
    // pluck: one string per row, no row objects (long threads are read whole).
    this.listStmt = db
      .prepare<[string], string>('SELECT item FROM thread_items WHERE thread_id = ? ORDER BY ordinal')
      .pluck();
    this.nextOrdinalStmt = db.prepare<[string], { next: number }>(
      'SELECT COALESCE(MAX(ordinal), 0) + 1 AS next FROM thread_items WHERE thread_id = ?',
    );
  }

  /** Appends an item at the end of its thread. */
  append(threadId: string, item: ConversationItem): void {
    const ordinal = this.nextOrdinalStmt.get(threadId)!.next;
    this.insertStmt.run({
      id: item.id,
      thread_id: threadId,
      turn_id: item.turnId,
      ordinal,
      type: item.type,
      role: roleOf(item),
      content: searchableText(item),
      item: JSON.stringify(item),
      created_at_ms: item.createdAtMs,
    });
  }

  /** Replaces a stored item (same id) with its completed form. */
  replace(item: ThreadItem): void {
    this.updateStmt.run({ id: item.id, content: searchableText(item), item: JSON.stringify(item) });
  }

  list(threadId: string): ConversationItem[] {
    return this.listStmt.all(threadId).map((text) => upgradeItem(JSON.parse(text) as ConversationItem | LegacyToolCallItem));
  }
}

/** Rows stored before items carried Codex's start/completion times: a stored item is complete. */
function withTimes<T extends { readonly type: string }>(item: T): T {
  const createdAtMs = (item as unknown as { createdAtMs: number }).createdAtMs;
  return { ...item, startedAtMs: createdAtMs, completedAtMs: createdAtMs };
}

/** Reads rows stored by earlier versions in today's shapes. */
function upgradeItem(stored: ConversationItem | LegacyToolCallItem): ConversationItem {
  const item = 'startedAtMs' in stored ? stored : withTimes(stored);
  if (item.type !== 'toolCall') {
    // Rows from before Codex's null fields were added lack them; `in` checks the stored JSON, not the type.
    const stored: Record<string, unknown> = item;
    if (item.type === 'userMessage') {
      const upgraded = { ...item, content: item.content.map(withTextElements) };
      return 'clientId' in stored ? upgraded : { ...upgraded, ...ITEM_CODEX_NULLS.userMessage };
    }
    if (item.type === 'agentMessage' && !('phase' in stored)) return { ...item, ...ITEM_CODEX_NULLS.agentMessage };
    return item;
  }
  const output = item.output;
  return {
    ...(item as unknown as Omit<Extract<ThreadItem, { type: 'dynamicToolCall' }>, 'type'>),
    type: 'dynamicToolCall',
    namespace: null,
    contentItems: output === null ? null : [{ type: 'inputText', text: output }],
  };
}

function roleOf(item: ConversationItem): string | null {
  switch (item.type) {
    case 'userMessage':
      return 'user';
    case 'agentMessage':
    case 'reasoning':
    case 'dynamicToolCall':
    case 'commandExecution':
    case 'fileChange':
    case 'mcpToolCall':
      return 'assistant';
    case 'forkMarker':
      return 'system';
  }
}

/** Plain text of an item, kept in its own column for search and previews. */
function searchableText(item: ConversationItem): string {
  switch (item.type) {
    case 'userMessage':
      return item.content.map((c) => c.text).join('\n');
    case 'agentMessage':
      return item.text;
    case 'reasoning':
      return [...item.summary, ...item.content].join('\n');
    case 'dynamicToolCall':
      return item.tool;
    case 'commandExecution':
      return item.command;
    case 'fileChange':
      return item.changes.map((change) => change.path).join('\n');
    case 'mcpToolCall':
      return `${item.server} ${item.tool}`;
    case 'forkMarker':
      return '';
  }
}
