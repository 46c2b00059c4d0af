import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrations, type Migration } from './migrations.js';
import { ensurePrivateFile, tightenIfPresent } from './private-files.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Path of a better-sqlite3 native binding built for this host's ABI (Electron). */
  readonly nativeBinding?: string;
  /** How long a writer waits for a lock held by another connection. */
  readonly busyTimeoutMs?: number;
}

/** Thrown when the file's schema is newer than this build knows. */
export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(`state database schema v${found} is newer than this Wheelhouse (v${known}); update the app`);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Opens (creating if needed) the state database with WAL, foreign keys and a
 * busy timeout, then applies pending migrations. Each migration commits in
 * its own transaction, so a crash mid-upgrade leaves a consistent version.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  const onDisk = file !== ':memory:';
  if (onDisk) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // SQLite gives -wal/-shm the mode of the database file, so that one is made private first.
    ensurePrivateFile(file);
  }
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    db.pragma('journal_mode = WAL');
    if (onDisk) for (const suffix of ['-wal', '-shm']) tightenIfPresent(`${file}${suffix}`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Small, frequent WAL checkpoints: each one blocks the event loop for less time.
    db.pragma('wal_autocheckpoint = 256');
    // A burst may grow the WAL; after a checkpoint it is cut back to this instead of keeping its peak on disk.
    db.pragma('journal_size_limit = 4194304');
    // Memory stays bounded however large the database grows (docs/performance.md, "SQLite's share"
    // and "The soak's early rise"): a 2 MB page cache per connection, and no mmap. With 256 MB
    // mapped and a 32 MB cache, a 2,400-turn soak grew RSS 38-62%; an 8 MB cache still filled
    // over the first 300 turns (+7 MB of malloc heap after warm-up), 2 MB adds 1.5 MB. The file's
    // pages stay in the kernel's cache, so a miss is a read() from memory: turn overhead, the
    // event log's commits and resuming a 2,000-turn thread measured the same with either cache.
    // Sorts and temp tables already go to disk (better-sqlite3 is built with SQLITE_TEMP_STORE=1).
    db.pragma('cache_size = -2048');
    db.pragma('mmap_size = 0');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // Set before the first table exists (a new home): pages freed by retention go back to the disk
    // a few at a time (retention-store.ts). Older homes switch once, at their first prune.
    if (schemaVersion(db) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    applyMigrations(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function applyMigrations(db: Db, list: readonly Migration[]): void {
  const known = list.length === 0 ? 0 : list[list.length - 1]!.version;
  const current = schemaVersion(db);
  if (current > known) throw new SchemaTooNewError(current, known);
  for (const migration of list) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
