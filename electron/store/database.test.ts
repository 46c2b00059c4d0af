import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { applyMigrations, openDatabase, SchemaTooNewError, schemaVersion } from './database.js';
import { migrations } from './migrations.js';
import { StateStore } from './state-store.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const latest = migrations[migrations.length - 1]!.version;

function tableNames(db: Database.Database): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);
}

describe('openDatabase', () => {
  it('applies every migration to a new file and records the version in user_version', () => {
    const file = path.join(temp.make(), 'nested', 'state.sqlite');
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(latest);
    expect(tableNames(db)).toEqual(expect.arrayContaining(['threads', 'turns', 'thread_items', 'checkpoints', 'events']));
    db.close();
  });

  it('numbers migrations 1, 2, 3... without gaps, so user_version is meaningful', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('reopens an existing file without re-running migrations or losing data', () => {
    const file = path.join(temp.make(), 'state.sqlite');
    const first = openDatabase(file);
    first.prepare("INSERT INTO events (seq, schema_version, event, kind, created_at_ms, payload) VALUES (1, 1, 'e', 'k', 1, 'null')").run();
    first.close();
    const again = openDatabase(file);
    expect(schemaVersion(again)).toBe(latest);
    expect(again.prepare('SELECT COUNT(*) AS n FROM events').get()).toEqual({ n: 1 });
    applyMigrations(again, migrations);
    expect(schemaVersion(again)).toBe(latest);
    again.close();
  });

  it('turns on WAL, foreign keys and a busy timeout', () => {
    const db = openDatabase(path.join(temp.make(), 'state.sqlite'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    db.close();
  });

  it('reads a database far larger than its page cache without mapping the file into memory', () => {
    const file = path.join(fs.realpathSync(temp.make()), 'state.sqlite');
    const db = openDatabase(file);
    // 16 MB of events, eight times the page cache, read back whole.
    const insert = db.prepare("INSERT INTO events (seq, schema_version, event, kind, created_at_ms, payload) VALUES (?, 1, 'e', 'k', 1, ?)");
    const payload = JSON.stringify('x'.repeat(16 * 1024));
    db.transaction(() => {
      for (let seq = 1; seq <= 1024; seq++) insert.run(seq, payload);
    })();
    const read = db.prepare<[], { bytes: number }>('SELECT SUM(LENGTH(payload)) AS bytes FROM events').get();
    expect(read?.bytes).toBeGreaterThan(16 * 1024 * 1024);
    // Each connection's cache is bounded (a negative cache_size is KiB); the file's pages stay the kernel's.
    expect(-(db.pragma('cache_size', { simple: true }) as number) * 1024).toBeLessThanOrEqual(2 * 1024 * 1024);
    const mapped = fs.readFileSync('/proc/self/smaps', 'utf8').split('\n').filter((line) => line.endsWith(` ${file}`));
    expect(mapped).toEqual([]);
    db.close();
  });

  it('enforces foreign keys: an item for a missing thread is refused', () => {
    const db = openDatabase(path.join(temp.make(), 'state.sqlite'));
    const insert = db.prepare(
      "INSERT INTO thread_items (id, thread_id, turn_id, ordinal, type, item, created_at_ms) VALUES ('i', 'missing', NULL, 1, 'userMessage', '{}', 1)",
    );
    expect(() => insert.run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('refuses a file written by a newer Wheelhouse with SchemaTooNewError and leaves it untouched', () => {
    const file = path.join(temp.make(), 'state.sqlite');
    const future = new Database(file);
    future.pragma(`user_version = ${latest + 5}`);
    future.exec('CREATE TABLE from_the_future (x INTEGER)');
    future.close();

    expect(() => openDatabase(file)).toThrow(SchemaTooNewError);
    expect(() => StateStore.open(file)).toThrow(/newer than this Wheelhouse/);

    const check = new Database(file);
    expect(schemaVersion(check)).toBe(latest + 5);
    expect(tableNames(check)).toEqual(['from_the_future']);
    check.close();
  });

  it('rolls a failing migration back whole and keeps the previous version', () => {
    const file = path.join(temp.make(), 'state.sqlite');
    const db = openDatabase(file);
    const broken = [
      ...migrations,
      { version: latest + 1, name: 'broken', sql: 'CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table;' },
    ];
    expect(() => applyMigrations(db, broken)).toThrow(/no_such_table/);
    expect(schemaVersion(db)).toBe(latest);
    expect(tableNames(db)).not.toContain('half_done');
    db.close();
  });

  it('applies only the migrations newer than the file', () => {
    const db = openDatabase(path.join(temp.make(), 'state.sqlite'));
    const next = { version: latest + 1, name: 'extra', sql: 'CREATE TABLE extra (x INTEGER);' };
    applyMigrations(db, [...migrations, next]);
    applyMigrations(db, [...migrations, next]);
    expect(schemaVersion(db)).toBe(latest + 1);
    expect(tableNames(db)).toContain('extra');
    db.close();
  });
});
