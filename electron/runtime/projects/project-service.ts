import path from 'node:path';
import { RpcError, type ErrorReason, type HandlerParamsOf, type JobCreateAgentParams, type Project, type ResultOf } from '../../../shared/protocol/index.js';
import type { ConfigService } from '../../config/config-service.js';
import { GitError, type GitRunner } from '../../git/git-runner.js';
import { readRepositoryState } from '../../git/repository.js';
import {
  closeWorktreeKeepingBranch,
  commitChanges,
  createWorktree,
  discardWorktree,
  mergeWorktree,
  readWorktree,
  shortNameOf,
  WorktreeError,
} from '../../git/worktrees.js';
import { readMainCheckout } from '../git-info.js';
import type { ThreadManager } from '../thread-manager.js';
import { requireDirectory } from '../working-directory.js';
import { readProjectSettings, writeProjectSettings } from './project-settings.js';
import type { TurnChanges } from './turn-changes.js';

export interface ProjectServiceDeps {
  readonly git: GitRunner;
  readonly changes: TurnChanges;
  readonly threads: ThreadManager;
  readonly config: ConfigService;
  /** `<home>/worktrees`: where agents' separate copies are made. */
  readonly worktreesDir: string;
  /** The folder thread/start uses when it names none. */
  readonly defaultCwd: () => string;
  /** Tells clients config.toml changed (a project's settings were written). */
  readonly configChanged: (keyPath: string) => void;
  readonly newId: () => string;
  readonly logError?: (message: string, error: unknown) => void;
}

/** Most threads project/list looks at. */
const MAX_LISTED_THREADS = 5_000;

/** The reasons a WorktreeError carries, as the protocol names them. */
const WORKTREE_REASONS: Record<WorktreeError['reason'], ErrorReason> = {
  'not-a-repository': 'worktree.notARepository',
  'not-a-worktree': 'worktree.none',
  'no-commit': 'worktree.noCommit',
  'base-not-checked-out': 'worktree.baseNotCheckedOut',
  'checkout-busy': 'worktree.checkoutBusy',
  'git-failed': 'git.failed',
};

/**
 * Projects and a thread's separate copy: what `project/*`, `thread/changes/commit` and
 * `thread/worktree/*` do (handlers/project-handlers.ts calls them), plus what thread/start
 * and job/create do for a project (its remembered settings, a new worktree).
 */
export class ProjectService {
  constructor(private readonly deps: ProjectServiceDeps) {}

  listProjects(params: HandlerParamsOf<'project/list'>): ResultOf<'project/list'> {
    const all = this.list();
    if (params.sortDirection === 'asc') all.reverse();
    const offset = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw RpcError.invalidParams('invalid params for project/list: cursor: not a cursor this server gave out');
    const limit = params.limit ? Math.min(params.limit, 500) : 500;
    const data = all.slice(offset, offset + limit);
    return { data, nextCursor: offset + limit < all.length ? String(offset + limit) : null };
  }

  readProject(projectId: string): ResultOf<'project/read'> {
    const project = this.list().find((candidate) => candidate.id === projectId);
    if (!project) throw RpcError.because('project.notFound', `No thread works in ${projectId}, so it is not a project yet.`, { projectId });
    return { project };
  }

  async readState(folderPath: string): Promise<ResultOf<'project/state/read'>> {
    const folder = requireDirectory('project/state/read', folderPath);
    const repository = await readRepositoryState(this.deps.git, folder);
    return {
      path: folder,
      name: path.basename(folder) || folder,
      repository: repository && { root: repository.root, mainRoot: repository.mainRoot, branch: repository.branch, dirty: repository.dirty },
      settings: readProjectSettings(this.deps.config, folder),
    };
  }

  writeSettings(params: HandlerParamsOf<'project/settings/write'>): ResultOf<'project/settings/write'> {
    const folder = requireDirectory('project/settings/write', params.path);
    this.deps.configChanged(writeProjectSettings(this.deps.config, folder, params.settings));
    return { settings: readProjectSettings(this.deps.config, folder) };
  }

  commit(params: HandlerParamsOf<'thread/changes/commit'>): Promise<ResultOf<'thread/changes/commit'>> {
    return this.gitStep(async () => {
      const { record } = this.deps.threads.requireUnarchived(params.threadId, 'thread/changes/commit');
      if (!(await readRepositoryState(this.deps.git, record.cwd))) {
        throw RpcError.because('git.notARepository', `${record.cwd} is not a git repository, so there is nothing to commit to.`, { path: record.cwd });
      }
      return { commit: await commitChanges(this.deps.git, record.cwd, params.message, params.paths ?? undefined) };
    });
  }

  readWorktree(threadId: string): Promise<ResultOf<'thread/worktree/read'>> {
    return this.gitStep(async () => ({ worktree: await this.worktreeOf(threadId) }));
  }

  merge(params: HandlerParamsOf<'thread/worktree/merge'>): Promise<ResultOf<'thread/worktree/merge'>> {
    return this.gitStep(async () => {
      const cwd = this.requireWorktreeThread(params.threadId);
      const { record } = this.deps.threads.require(params.threadId);
      const message = params.message ?? record.name ?? `Changes from Wheelhouse thread ${params.threadId}`;
      const outcome = await mergeWorktree(this.deps.git, cwd, message);
      return { outcome: outcome.status === 'conflict' ? { status: 'conflict' as const, files: [...outcome.files] } : outcome };
    });
  }

  keep(threadId: string): Promise<ResultOf<'thread/worktree/keep'>> {
    return this.gitStep(async () => {
      const cwd = this.requireWorktreeThread(threadId);
      this.requireIdle(threadId);
      const { record } = this.deps.threads.require(threadId);
      const kept = await closeWorktreeKeepingBranch(this.deps.git, cwd, record.name ?? `Work in progress from Wheelhouse thread ${threadId}`);
      return { branch: kept.branch };
    });
  }

  discard(threadId: string): Promise<ResultOf<'thread/worktree/discard'>> {
    return this.gitStep(async () => {
      const cwd = this.requireWorktreeThread(threadId);
      this.requireIdle(threadId);
      const discarded = await discardWorktree(this.deps.git, cwd);
      // The copy's checkpoints live in the repository's refs: they go with it.
      await this.deps.changes.forgetThread(threadId, discarded.mainRoot);
      return { branch: discarded.branch, discardedCommits: discarded.unmergedCommits.length };
    });
  }

  /**
   * thread/start for a project: the folder's remembered settings fill what the params leave
   * out, and `worktree: true` makes a separate copy the thread then works in.
   */
  async prepareStart(params: HandlerParamsOf<'thread/start'>): Promise<HandlerParamsOf<'thread/start'>> {
    const folder = params.cwd ? requireDirectory('thread/start', params.cwd) : path.resolve(this.deps.defaultCwd());
    const settings = readProjectSettings(this.deps.config, folder);
    const prepared = {
      ...params,
      cwd: folder,
      model: params.model ?? settings.model,
      modelProvider: params.modelProvider ?? settings.modelProvider,
      sandbox: params.sandbox ?? settings.sandbox,
      approvalPolicy: params.approvalPolicy ?? settings.approvalPolicy,
    };
    if (!params.worktree) return prepared;
    if (params.ephemeral) throw RpcError.invalidParams('invalid params for thread/start: an ephemeral thread cannot have a separate copy (worktree)');
    const worktree = await this.gitStep(() => createWorktree(this.deps.git, folder, this.deps.worktreesDir, `thread-${this.deps.newId().slice(0, 8)}`));
    return { ...prepared, cwd: worktree.path };
  }

  /**
   * job/create for an agent job with `worktree: true`: the job runs in a new separate copy
   * (its `cwd` is the copy, on `wheelhouse/job-<objective>`). If the job is not created after
   * all, the copy and its branch are removed again.
   */
  async createAgentJob<T>(params: JobCreateAgentParams, create: (params: JobCreateAgentParams) => Promise<T>): Promise<T> {
    if (!params.worktree) return create(params);
    const folder = requireDirectory('job/create', params.cwd);
    const worktree = await this.gitStep(() => createWorktree(this.deps.git, folder, this.deps.worktreesDir, `job-${shortNameOf(params.objective)}`));
    try {
      return await create({ ...params, cwd: worktree.path });
    } catch (error) {
      await discardWorktree(this.deps.git, worktree.path).catch((cleanup: unknown) => this.deps.logError?.(`removing the copy ${worktree.path} of a job that was not created`, cleanup));
      throw error;
    }
  }

  private list(): Project[] {
    const byFolder = new Map<string, { threadIds: string[]; updatedAt: number; createdAt: number }>();
    let cursor: string | null = null;
    let seen = 0;
    do {
      const page: ResultOf<'thread/list'> = this.deps.threads.list({ limit: 500, cursor });
      for (const thread of page.data) {
        const folder = this.projectOf(thread.cwd);
        const entry = byFolder.get(folder) ?? { threadIds: [], updatedAt: thread.updatedAt, createdAt: thread.createdAt };
        entry.threadIds.push(thread.id);
        entry.updatedAt = Math.max(entry.updatedAt, thread.updatedAt);
        entry.createdAt = Math.min(entry.createdAt, thread.createdAt);
        byFolder.set(folder, entry);
      }
      seen += page.data.length;
      cursor = page.nextCursor;
    } while (cursor && seen < MAX_LISTED_THREADS);
    return [...byFolder.entries()]
      .sort(([, a], [, b]) => b.updatedAt - a.updatedAt)
      .map(([folder, entry], position) => ({
        id: folder,
        name: path.basename(folder) || folder,
        roots: [{ path: folder }],
        metadata: {},
        position,
        createdAt: entry.createdAt,
        updatedAt: entry.updatedAt,
        recencyAt: entry.updatedAt,
        path: folder,
        threadIds: entry.threadIds,
      }));
  }

  /** A thread in a separate copy belongs to the project it was copied from. */
  projectOf(cwd: string): string {
    if (!this.isWorktreePath(cwd)) return cwd;
    return readMainCheckout(cwd) ?? cwd;
  }

  private isWorktreePath(cwd: string): boolean {
    const relative = path.relative(this.deps.worktreesDir, cwd);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  }

  private async worktreeOf(threadId: string): Promise<ResultOf<'thread/worktree/read'>['worktree']> {
    const { record } = this.deps.threads.require(threadId);
    if (!this.isWorktreePath(record.cwd)) return null;
    try {
      const state = await readWorktree(this.deps.git, record.cwd);
      return { ...state, unmergedCommits: [...state.unmergedCommits], uncommittedPaths: [...state.uncommittedPaths] };
    } catch (error) {
      // Kept or discarded: the thread no longer has a copy.
      if (error instanceof WorktreeError && error.reason === 'not-a-worktree') return null;
      throw error;
    }
  }

  private requireWorktreeThread(threadId: string): string {
    const { record } = this.deps.threads.require(threadId);
    if (!this.isWorktreePath(record.cwd)) {
      throw RpcError.because('worktree.none', `Thread ${threadId} works in ${record.cwd}, not in a separate copy.`, { threadId });
    }
    return record.cwd;
  }

  private requireIdle(threadId: string): void {
    if (this.deps.threads.activeTurn(threadId)) {
      throw RpcError.because('worktree.turnRunning', 'The agent is still working in this copy; stop the turn first.', { threadId });
    }
  }

  /** Git's refusals become typed errors that say what to do; anything else stays an internal error. */
  private async gitStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof WorktreeError) throw RpcError.because(WORKTREE_REASONS[error.reason], error.message);
      if (error instanceof GitError) throw RpcError.because('git.failed', `git refused: ${error.stderr || error.message}`);
      throw error;
    }
  }
}
