import path from 'node:path';
import { RpcError, type HandlerParamsOf, type MethodHandlers, type Project, type ResultOf } from '../../../shared/protocol/index.js';
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
  WorktreeError,
} from '../../git/worktrees.js';
import type { RequestContext } from '../context.js';
import { readMainCheckout } from '../git-info.js';
import type { ThreadManager } from '../thread-manager.js';
import { requireDirectory } from '../working-directory.js';
import { readProjectSettings, writeProjectSettings } from './project-settings.js';
import type { TurnChanges } from './turn-changes.js';

export interface ProjectHandlerDeps {
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
}

type ProjectMethod =
  | 'project/list'
  | 'project/read'
  | 'project/state/read'
  | 'project/settings/write'
  | 'thread/changes/read'
  | 'thread/changes/revert'
  | 'thread/changes/commit'
  | 'thread/worktree/read'
  | 'thread/worktree/merge'
  | 'thread/worktree/keep'
  | 'thread/worktree/discard';

/** Most threads project/list looks at. */
const MAX_LISTED_THREADS = 5_000;

/**
 * Projects, a thread's changes and its separate copy: the handlers of `project/*`,
 * `thread/changes/*` and `thread/worktree/*`, plus what thread/start does for a project
 * (its remembered settings, a new worktree).
 */
export class ProjectHandlers {
  constructor(private readonly deps: ProjectHandlerDeps) {}

  handlers(): Pick<MethodHandlers<RequestContext>, ProjectMethod> {
    return {
      'project/list': (params) => {
        const all = this.list();
        if (params.sortDirection === 'asc') all.reverse();
        const offset = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
        if (!Number.isInteger(offset) || offset < 0) throw RpcError.invalidParams(`invalid params for project/list: cursor: not a cursor this server gave out`);
        const limit = params.limit ? Math.min(params.limit, 500) : 500;
        const data = all.slice(offset, offset + limit);
        return { data, nextCursor: offset + limit < all.length ? String(offset + limit) : null };
      },
      'project/read': (params) => {
        const project = this.list().find((candidate) => candidate.id === params.projectId);
        if (!project) throw RpcError.invalidRequest(`project not found: ${params.projectId}`, { projectId: params.projectId });
        return { project };
      },
      'project/state/read': async (params) => {
        const folder = requireDirectory('project/state/read', params.path);
        const repository = await readRepositoryState(this.deps.git, folder);
        return {
          path: folder,
          name: path.basename(folder) || folder,
          repository: repository && { root: repository.root, mainRoot: repository.mainRoot, branch: repository.branch, dirty: repository.dirty },
          settings: readProjectSettings(this.deps.config, folder),
        };
      },
      'project/settings/write': (params) => {
        const folder = requireDirectory('project/settings/write', params.path);
        this.deps.configChanged(writeProjectSettings(this.deps.config, folder, params.settings));
        return { settings: readProjectSettings(this.deps.config, folder) };
      },
      'thread/changes/read': (params) => this.deps.changes.read(params),
      'thread/changes/revert': (params) => this.deps.changes.revert(params),
      'thread/changes/commit': (params) =>
        this.gitStep(async () => {
          const { record } = this.deps.threads.requireUnarchived(params.threadId, 'thread/changes/commit');
          if (!(await readRepositoryState(this.deps.git, record.cwd))) {
            throw RpcError.invalidRequest(`${record.cwd} is not a git repository, so there is nothing to commit to.`, { reason: 'git.notARepository' });
          }
          return { commit: await commitChanges(this.deps.git, record.cwd, params.message, params.paths ?? undefined) };
        }),
      'thread/worktree/read': (params) => this.gitStep(async () => ({ worktree: await this.worktreeOf(params.threadId) })),
      'thread/worktree/merge': (params) =>
        this.gitStep(async () => {
          const cwd = this.requireWorktreeThread(params.threadId);
          const { record } = this.deps.threads.require(params.threadId);
          const message = params.message ?? record.name ?? `Changes from Wheelhouse thread ${params.threadId}`;
          const outcome = await mergeWorktree(this.deps.git, cwd, message);
          return { outcome: outcome.status === 'conflict' ? { status: 'conflict' as const, files: [...outcome.files] } : outcome };
        }),
      'thread/worktree/keep': (params) =>
        this.gitStep(async () => {
          const cwd = this.requireWorktreeThread(params.threadId);
          this.requireIdle(params.threadId);
          const { record } = this.deps.threads.require(params.threadId);
          const kept = await closeWorktreeKeepingBranch(this.deps.git, cwd, record.name ?? `Work in progress from Wheelhouse thread ${params.threadId}`);
          return { branch: kept.branch };
        }),
      'thread/worktree/discard': (params) =>
        this.gitStep(async () => {
          const cwd = this.requireWorktreeThread(params.threadId);
          this.requireIdle(params.threadId);
          const discarded = await discardWorktree(this.deps.git, cwd);
          // The copy's checkpoints live in the repository's refs: they go with it.
          await this.deps.changes.forgetThread(params.threadId, discarded.mainRoot);
          return { branch: discarded.branch, discardedCommits: discarded.unmergedCommits.length };
        }),
    };
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
  private projectOf(cwd: string): string {
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
      throw RpcError.invalidRequest(`thread ${threadId} works in ${record.cwd}, not in a separate copy`, { reason: 'worktree.none' });
    }
    return record.cwd;
  }

  private requireIdle(threadId: string): void {
    if (this.deps.threads.activeTurn(threadId)) {
      throw RpcError.invalidRequest('The agent is still working in this copy; stop the turn first.', { reason: 'worktree.turnRunning' });
    }
  }

  /** Git's refusals become typed errors that say what to do; anything else stays an internal error. */
  private async gitStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof WorktreeError) throw RpcError.invalidRequest(error.message, { reason: `worktree.${error.reason}` });
      if (error instanceof GitError) throw RpcError.invalidRequest(`git refused: ${error.stderr || error.message}`, { reason: 'git.failed' });
      throw error;
    }
  }
}
