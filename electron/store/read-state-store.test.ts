import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { threadRecord } from '../../test-support/records.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { applyMigrations } from './database.js';
import { migrations } from './migrations.js';
import { StateStore } from './state-store.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe('migration 12: thread originator and read receipts', () => {
  it('upgrades a version-11 file in place: its threads stay, with no originator and nothing unread', () => {
    const file = path.join(temp.make(), 'state.sqlite');
    const old = new Database(file);
    applyMigrations(old, migrations.filter((m) => m.version <= 11));
    old.prepare(
      "INSERT INTO threads (id, preview, model_provider, created_at_ms, updated_at_ms, cwd, cli_version, source) VALUES ('t-old', 'hi', 'p', 1, 1, '/', '0.1.0', 'api')",
    ).run();
    old.close();

    const store = StateStore.open(file);
    expect(store.threads.get('t-old')).toMatchObject({ id: 't-old', preview: 'hi', originator: null });
    expect(store.readStates.get('t-old')).toEqual({ firstUnreadTurn: null, revision: 'initial:t-old' });
    store.close();
  });
});

describe('read receipts', () => {
  it('keeps the first unread turn, moves the revision with each new result, and announces a turn once', () => {
    const store = StateStore.inMemory();
    store.threads.upsert(threadRecord('t1', { originator: 'codex_vscode' }));
    expect(store.threads.get('t1')?.originator).toBe('codex_vscode');

    expect(store.readStates.publish('t1', 'turn-1', 'r1')).toBe(true);
    expect(store.readStates.publish('t1', 'turn-1', 'r1-again')).toBe(false);
    expect(store.readStates.publish('t1', 'turn-2', 'r2')).toBe(true);
    expect(store.readStates.get('t1')).toEqual({ firstUnreadTurn: 'turn-1', revision: 'r2' });

    expect(store.readStates.mark('t1', true, 'r3')).toEqual({ firstUnreadTurn: null, revision: 'r3' });
    expect(store.readStates.publish('t1', 'turn-3', 'r4')).toBe(true);
    expect(store.readStates.get('t1').firstUnreadTurn).toBe('turn-3');
    expect(store.readStates.mark('t1', false, 'r5').firstUnreadTurn).toBe('');

    // A rollback that drops the first unread turn leaves the thread read; one that does not, as it was.
    store.readStates.publish('t1', 'turn-4', 'r6');
    store.readStates.mark('t1', true, 'r7');
    store.readStates.publish('t1', 'turn-5', 'r8');
    expect(store.readStates.forgetTurns('t1', ['turn-9'], 'r9')).toBeNull();
    expect(store.readStates.forgetTurns('t1', ['turn-5'], 'r9')).toEqual({ firstUnreadTurn: null, revision: 'r9' });

    // A deleted thread takes its receipt with it.
    store.threads.delete('t1');
    expect(store.readStates.get('t1')).toEqual({ firstUnreadTurn: null, revision: 'initial:t1' });
    store.close();
  });
});
