import type { ThreadItem } from '../../shared/protocol/index.js';
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
  append(threadId: string, item: ThreadItem): void {
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

  list(threadId: string): ThreadItem[] {
    return this.listStmt.all(threadId).map((text) => JSON.parse(text) as ThreadItem);
  }
}

function roleOf(item: ThreadItem): string | null {
  switch (item.type) {
    case 'userMessage':
      return 'user';
    case 'agentMessage':
    case 'reasoning':
    case 'toolCall':
    case 'mcpToolCall':
      return 'assistant';
    case 'forkMarker':
      return 'system';
  }
}

/** Plain text of an item, kept in its own column for search and previews. */
function searchableText(item: ThreadItem): string {
  switch (item.type) {
    case 'userMessage':
      return item.content.map((c) => c.text).join('\n');
    case 'agentMessage':
      return item.text;
    case 'reasoning':
      return [...item.summary, ...item.content].join('\n');
    case 'toolCall':
      return item.tool;
    case 'mcpToolCall':
      return `${item.server} ${item.tool}`;
    case 'forkMarker':
      return '';
  }
}
