import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** A thread row as the runtime sees it (times in ms; wire converts to seconds). */
export interface ThreadRecord {
  id: string;
  rolloutPath: string | null;
  preview: string;
  ephemeral: boolean;
  modelProvider: string;
  model: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  status: string;
  path: string | null;
  cwd: string;
  cliVersion: string;
  source: string;
  name: string | null;
  sandboxPolicy: string | null;
  approvalMode: string | null;
  archived: boolean;
  archivedAtMs: number | null;
  gitSha: string | null;
  gitBranch: string | null;
  gitOriginUrl: string | null;
  memoryMode: string | null;
  forkedFromId: string | null;
  /** The client that made the thread (its `clientInfo.name`); null for threads made before it was kept. */
  originator: string | null;
  /** Where its commands run (an environment id; `local` is this machine). */
  environmentId: string;
  /** The folder there, for a remote environment; null on this machine (the thread's `cwd`). */
  environmentCwd: string | null;
}

interface ThreadRow {
  id: string;
  rollout_path: string | null;
  preview: string;
  ephemeral: number;
  model_provider: string;
  model: string | null;
  created_at_ms: number;
  updated_at_ms: number;
  status: string;
  path: string | null;
  cwd: string;
  cli_version: string;
  source: string;
  name: string | null;
  sandbox_policy: string | null;
  approval_mode: string | null;
  archived: number;
  archived_at_ms: number | null;
  git_sha: string | null;
  git_branch: string | null;
  git_origin_url: string | null;
  memory_mode: string | null;
  forked_from_id: string | null;
  originator: string | null;
  environment_id: string;
  environment_cwd: string | null;
}

/** The columns a listing can be ordered by (Codex's `created_at` and `updated_at` sort keys). */
export type ThreadSortColumn = 'createdAtMs' | 'updatedAtMs';
export type ThreadSortDirection = 'asc' | 'desc';

/** A position in a listing: the sort value and id of a thread; `inclusive` lists that thread again. */
export interface ThreadCursor {
  readonly at: number;
  readonly id: string;
  readonly inclusive: boolean;
}

export interface ThreadListQuery {
  /** 'active' hides archived threads, 'archived' shows only them, 'all' shows both. */
  readonly archived: 'active' | 'archived' | 'all';
  readonly limit: number;
  /** Default: newest updated first. Ties are broken by id, in the same direction. */
  readonly sortBy?: ThreadSortColumn;
  readonly direction?: ThreadSortDirection;
  readonly after?: ThreadCursor;
}

const SORT_SQL: Record<ThreadSortColumn, string> = { createdAtMs: 'created_at_ms', updatedAtMs: 'updated_at_ms' };
const ARCHIVED_SQL = { active: 'archived = 0', archived: 'archived = 1', all: '1 = 1' } as const;

/** Prepared-statement repository for the threads table. */
export class ThreadStore {
  private readonly upsertStmt;
  private readonly getStmt;
  /** One prepared statement per filter, order and cursor kind, made when first used. */
  private readonly listStmts = new Map<string, Statement<Record<string, unknown>, ThreadRow>>();
  private readonly usingEnvironmentStmt;

  constructor(private readonly db: Db) {
    this.upsertStmt = db.prepare(`
      INSERT INTO threads (id, rollout_path, preview, ephemeral, model_provider, model, created_at_ms,
        updated_at_ms, status, path, cwd, cli_version, source, name, sandbox_policy, approval_mode,
        archived, archived_at_ms, git_sha, git_branch, git_origin_url, memory_mode, forked_from_id, originator,
        environment_id, environment_cwd)
      VALUES (@id, @rollout_path, @preview, @ephemeral, @model_provider, @model, @created_at_ms,
        @updated_at_ms, @status, @path, @cwd, @cli_version, @source, @name, @sandbox_policy, @approval_mode,
        @archived, @archived_at_ms, @git_sha, @git_branch, @git_origin_url, @memory_mode, @forked_from_id, @originator,
        @environment_id, @environment_cwd)
      ON CONFLICT(id) DO UPDATE SET
        rollout_path = excluded.rollout_path, preview = excluded.preview, ephemeral = excluded.ephemeral,
        model_provider = excluded.model_provider, model = excluded.model, updated_at_ms = excluded.updated_at_ms,
        status = excluded.status, path = excluded.path, cwd = excluded.cwd, cli_version = excluded.cli_version,
        source = excluded.source, name = excluded.name, sandbox_policy = excluded.sandbox_policy,
        approval_mode = excluded.approval_mode, archived = excluded.archived,
        archived_at_ms = excluded.archived_at_ms, git_sha = excluded.git_sha, git_branch = excluded.git_branch,
        git_origin_url = excluded.git_origin_url, memory_mode = excluded.memory_mode,
        forked_from_id = excluded.forked_from_id, originator = excluded.originator, environment_id = excluded.environment_id,
        environment_cwd = excluded.environment_cwd`);
    this.usingEnvironmentStmt = db.prepare<[string], { id: string; name: string | null; preview: string }>(
      'SELECT id, name, preview FROM threads WHERE environment_id = ? AND archived = 0 ORDER BY updated_at_ms DESC',
    );
    this.getStmt = db.prepare<[string], ThreadRow>('SELECT * FROM threads WHERE id = ?');
  }

  upsert(record: ThreadRecord): void {
    this.upsertStmt.run(toRow(record));
  }

  get(id: string): ThreadRecord | undefined {
    const row = this.getStmt.get(id);
    return row ? fromRow(row) : undefined;
  }

  list(query: ThreadListQuery): ThreadRecord[] {
    const column = SORT_SQL[query.sortBy ?? 'updatedAtMs'];
    const direction = query.direction ?? 'desc';
    const cursor = query.after ? (query.after.inclusive ? 'inclusive' : 'exclusive') : 'none';
    const key = `${query.archived}/${column}/${direction}/${cursor}`;
    let stmt = this.listStmts.get(key);
    if (!stmt) {
      const beyond = direction === 'desc' ? '<' : '>';
      const keyset =
        cursor === 'none' ? '' : ` AND (${column} ${beyond} @at OR (${column} = @at AND id ${beyond}${cursor === 'inclusive' ? '=' : ''} @id))`;
      const order = direction === 'desc' ? 'DESC' : 'ASC';
      stmt = this.db.prepare<Record<string, unknown>, ThreadRow>(
        `SELECT * FROM threads WHERE ${ARCHIVED_SQL[query.archived]}${keyset} ORDER BY ${column} ${order}, id ${order} LIMIT @limit`,
      );
      this.listStmts.set(key, stmt);
    }
    const rows = query.after ? stmt.all({ at: query.after.at, id: query.after.id, limit: query.limit }) : stmt.all({ limit: query.limit });
    return rows.map(fromRow);
  }

  /** Applies a partial update in one statement; returns the new record. */
  update(id: string, patch: Partial<Omit<ThreadRecord, 'id'>>): ThreadRecord | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    const next = { ...current, ...patch };
    this.upsert(next);
    return next;
  }

  /** Threads not archived whose commands run on `environmentId`. */
  usingEnvironment(environmentId: string): { id: string; name: string | null; preview: string }[] {
    return this.usingEnvironmentStmt.all(environmentId);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM threads WHERE id = ?').run(id);
  }
}

function toRow(r: ThreadRecord): ThreadRow {
  return {
    id: r.id,
    rollout_path: r.rolloutPath,
    preview: r.preview,
    ephemeral: r.ephemeral ? 1 : 0,
    model_provider: r.modelProvider,
    model: r.model,
    created_at_ms: r.createdAtMs,
    updated_at_ms: r.updatedAtMs,
    status: r.status,
    path: r.path,
    cwd: r.cwd,
    cli_version: r.cliVersion,
    source: r.source,
    name: r.name,
    sandbox_policy: r.sandboxPolicy,
    approval_mode: r.approvalMode,
    archived: r.archived ? 1 : 0,
    archived_at_ms: r.archivedAtMs,
    git_sha: r.gitSha,
    git_branch: r.gitBranch,
    git_origin_url: r.gitOriginUrl,
    memory_mode: r.memoryMode,
    forked_from_id: r.forkedFromId,
    originator: r.originator,
    environment_id: r.environmentId,
    environment_cwd: r.environmentCwd,
  };
}

function fromRow(row: ThreadRow): ThreadRecord {
  return {
    id: row.id,
    rolloutPath: row.rollout_path,
    preview: row.preview,
    ephemeral: row.ephemeral === 1,
    modelProvider: row.model_provider,
    model: row.model,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
    status: row.status,
    path: row.path,
    cwd: row.cwd,
    cliVersion: row.cli_version,
    source: row.source,
    name: row.name,
    sandboxPolicy: row.sandbox_policy,
    approvalMode: row.approval_mode,
    archived: row.archived === 1,
    archivedAtMs: row.archived_at_ms,
    gitSha: row.git_sha,
    gitBranch: row.git_branch,
    gitOriginUrl: row.git_origin_url,
    memoryMode: row.memory_mode,
    forkedFromId: row.forked_from_id,
    originator: row.originator,
    environmentId: row.environment_id,
    environmentCwd: row.environment_cwd,
  };
}
