import { RpcError } from '../../shared/protocol/index.js';

/**
 * A position in a keyset listing (thread/list, thread/turns/list): the sort value and id of one
 * entry, and whether the next page starts with that entry again (a backwards cursor does, as
 * Codex's: the anchor is listed once more so an update to it is not missed).
 */
export interface ListPosition {
  readonly at: number;
  readonly id: string;
  readonly inclusive: boolean;
}

/**
 * Opaque to clients (base64url JSON); `scope` names the listing and order the cursor belongs to
 * (`created_at/desc`, a thread's turns), so a cursor sent with another order is refused rather
 * than read as a position in it. Keyset positions stay valid when entries are added: a new entry
 * lands before or after the position, never shifts it.
 */
export function encodeListCursor(scope: string, position: ListPosition): string {
  return Buffer.from(JSON.stringify({ s: scope, at: position.at, id: position.id, i: position.inclusive })).toString('base64url');
}

/** Reads a cursor this listing made; anything else is a typed `invalidParams` naming the method. */
export function decodeListCursor(method: string, scope: string, cursor: string): ListPosition {
  const refuse = (why: string) => RpcError.invalidParams(`invalid params for ${method}: cursor: ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse(`not a cursor returned by ${method}`);
  }
  const fields = value as { s?: unknown; at?: unknown; id?: unknown; i?: unknown } | null;
  if (
    typeof fields !== 'object' || fields === null ||
    typeof fields.s !== 'string' || typeof fields.at !== 'number' || !Number.isFinite(fields.at) ||
    typeof fields.id !== 'string' || typeof fields.i !== 'boolean'
  ) {
    throw refuse(`not a cursor returned by ${method}`);
  }
  if (fields.s !== scope) {
    throw refuse(`it was made for the order ${fields.s}, not ${scope}; send it with the order it came from (a backwardsCursor: with the opposite sortDirection)`);
  }
  return { at: fields.at, id: fields.id, inclusive: fields.i };
}

/** Orders two entries as a keyset listing does: by value, then id, both in the listing's direction. */
export function compareKeyset(direction: 'asc' | 'desc', a: { at: number; id: string }, b: { at: number; id: string }): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (a.at !== b.at) return sign * (a.at - b.at);
  return a.id === b.id ? 0 : sign * (a.id < b.id ? -1 : 1);
}

/** Whether an entry comes after (or at, for an inclusive position) a cursor's position. */
export function isBeyond(direction: 'asc' | 'desc', position: ListPosition, entry: { at: number; id: string }): boolean {
  const order = compareKeyset(direction, entry, position);
  return order > 0 || (order === 0 && position.inclusive);
}
