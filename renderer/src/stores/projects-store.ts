import { RpcError } from '../../../shared/protocol/errors.js';
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { Project, ProjectSettings, RepositoryState, ThreadChangesReadResult, Worktree } from '../../../shared/protocol/methods/projects.js';
import type { ReviewTarget } from '../../../shared/protocol/methods/review.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError, useToastStore } from './toast-store.js';
import { useConfirmStore } from './confirm-store.js';

/** A folder's repository state and remembered settings (project/state/read). */
export interface ProjectDetails {
  readonly path: string;
  readonly name: string;
  readonly repository: RepositoryState | null;
  readonly settings: ProjectSettings;
}

/** Whether a review started; when the runtime refused the target, why (for the field that named it). */
export type ReviewStartOutcome = { readonly started: true } | { readonly started: false; readonly refusal: string | null };

/** The Changes panel of one thread. */
export interface ThreadChanges {
  readonly threadId: string;
  readonly sinceTurnId: string | null;
  readonly load: 'loading' | 'ready' | 'failed';
  readonly result: ThreadChangesReadResult | null;
}

export interface ProjectsState {
  /** Folders threads work in, newest activity first. */
  readonly projects: readonly Project[];
  /** Each thread's project folder (a separate copy belongs to the folder it was copied from). */
  readonly projectOfThread: Readonly<Record<string, string>>;
  /** The "New thread" dialog; `folder` is the project chosen so far. */
  readonly picker: { readonly folder: string | null } | null;
  /** The project panel the header's folder opens. */
  readonly openProject: string | null;
  readonly details: Readonly<Record<string, ProjectDetails>>;
  /** The thread whose Changes panel is open (one at a time). */
  readonly changes: ThreadChanges | null;
  readonly worktrees: Readonly<Record<string, Worktree | null>>;
  refresh(): Promise<void>;
  openPicker(folder: string | null): void;
  /** A folder dropped onto the window: New thread asks with it chosen; a file (or a folder gone) is refused with a toast. */
  openDropped(folder: string): Promise<void>;
  closePicker(): void;
  showProject(folder: string | null): void;
  readDetails(folder: string): Promise<void>;
  writeSettings(folder: string, settings: Partial<ProjectSettings>): Promise<void>;
  /** Opens (or closes, when open) the thread's Changes panel. */
  toggleChanges(threadId: string): void;
  loadChanges(threadId: string, sinceTurnId: string | null): Promise<void>;
  /** Undo a turn's changes, or the given files of it; asks first. */
  revert(threadId: string, target: { readonly turnId: string | null; readonly paths?: readonly string[] }): Promise<void>;
  /** Takes one hunk of a file back, as the Changes panel shows it (no question asked: it is one visible part). */
  revertHunk(threadId: string, target: { readonly turnId: string | null; readonly path: string; readonly hunk: string }): Promise<void>;
  /** Commits the thread folder's changes (all, or `paths`); resolves whether it did. */
  commit(threadId: string, message: string): Promise<boolean>;
  /**
   * Starts a review turn of one target in the thread's folder (review/start); its findings arrive in
   * the conversation. A branch or commit that is not there comes back as `refusal`, in plain words,
   * for the field that named it; other failures are toasted.
   */
  review(threadId: string, target: ReviewTarget): Promise<ReviewStartOutcome>;
  readWorktree(threadId: string): Promise<void>;
  merge(threadId: string): Promise<void>;
  keep(threadId: string): Promise<void>;
  discard(threadId: string): Promise<void>;
}

/** Projects, the Changes panel and separate copies: everything about where a thread works and what it changed. */
export function createProjectsStore(client: WheelhouseClient): UseBoundStore<StoreApi<ProjectsState>> {
  const store = create<ProjectsState>()((set, get) => ({
    projects: [],
    projectOfThread: {},
    picker: null,
    openProject: null,
    details: {},
    changes: null,
    worktrees: {},

    refresh: async () => {
      try {
        const { data } = await client.request('project/list', {});
        const projectOfThread: Record<string, string> = {};
        for (const project of data) for (const threadId of project.threadIds) projectOfThread[threadId] = project.path;
        set({ projects: data, projectOfThread });
      } catch {
        // Offline: the list is read again on the next connect.
      }
    },

    openPicker: (folder) => set({ picker: { folder } }),
    closePicker: () => set({ picker: null }),
    openDropped: async (folder) => {
      try {
        const details = await client.request('project/state/read', { path: folder });
        set((state) => ({ details: { ...state.details, [details.path]: details }, picker: { folder: details.path } }));
      } catch (error) {
        if (error instanceof RpcError && error.reason === 'cwd.notFolder') {
          useToastStore.getState().show('notice', `${folder} is a file. Drop a folder to open it as a project.`);
          return;
        }
        showRequestError(error);
      }
    },
    showProject: (folder) => {
      set({ openProject: folder });
      if (folder) void get().readDetails(folder);
    },

    readDetails: async (folder) => {
      try {
        const details = await client.request('project/state/read', { path: folder });
        set((state) => ({ details: { ...state.details, [folder]: details } }));
      } catch {
        // A folder that is gone shows no branch; starting a thread there says why.
      }
    },

    writeSettings: async (folder, settings) => {
      try {
        const { settings: saved } = await client.request('project/settings/write', { path: folder, settings });
        set((state) => {
          const current = state.details[folder];
          return current ? { details: { ...state.details, [folder]: { ...current, settings: saved } } } : {};
        });
      } catch (error) {
        showRequestError(error);
      }
    },

    toggleChanges: (threadId) => {
      if (get().changes?.threadId === threadId) {
        set({ changes: null });
        return;
      }
      void get().loadChanges(threadId, null);
    },

    loadChanges: async (threadId, sinceTurnId) => {
      const previous = get().changes;
      const same = previous?.threadId === threadId && previous.sinceTurnId === sinceTurnId;
      set({ changes: { threadId, sinceTurnId, load: 'loading', result: same ? previous.result : null } });
      try {
        const result = await client.request('thread/changes/read', { threadId, ...(sinceTurnId ? { sinceTurnId } : {}) });
        if (get().changes?.threadId !== threadId) return;
        set({ changes: { threadId, sinceTurnId, load: 'ready', result } });
      } catch (error) {
        if (get().changes?.threadId === threadId) set({ changes: { threadId, sinceTurnId, load: 'failed', result: null } });
        showRequestError(error);
      }
    },

    revert: async (threadId, target) => {
      const what = target.paths?.length ? target.paths.join(', ') : target.turnId ? 'every file this turn changed' : 'every file this thread changed';
      const yes = await useConfirmStore.getState().ask({
        title: target.paths?.length ? 'Undo changes to these files?' : target.turnId ? "Undo this turn's changes?" : "Undo all of this thread's changes?",
        message: `Puts ${what} back as it was before the agent changed it. Files you changed since are left alone.`,
        confirmLabel: 'Undo changes',
        danger: true,
      });
      if (!yes) return;
      try {
        const { restored } = await client.request('thread/changes/revert', {
          threadId,
          ...(target.turnId ? { turnId: target.turnId } : {}),
          ...(target.paths?.length ? { paths: [...target.paths] } : {}),
        });
        useToastStore.getState().show('notice', restored.length === 0 ? 'Nothing to undo.' : `Undone: ${restored.length === 1 ? restored[0] : `${restored.length} files`}.`);
      } catch (error) {
        showRequestError(error);
      }
      const open = get().changes;
      if (open?.threadId === threadId) await get().loadChanges(threadId, open.sinceTurnId);
    },

    revertHunk: async (threadId, target) => {
      try {
        await client.request('thread/changes/revert', {
          threadId,
          ...(target.turnId ? { turnId: target.turnId } : {}),
          hunks: [{ path: target.path, hunk: target.hunk }],
        });
        useToastStore.getState().show('notice', `Undone: one part of ${target.path}.`);
      } catch (error) {
        showRequestError(error);
      }
      const open = get().changes;
      if (open?.threadId === threadId) await get().loadChanges(threadId, open.sinceTurnId);
    },

    commit: async (threadId, message) => {
      try {
        const { commit } = await client.request('thread/changes/commit', { threadId, message });
        useToastStore.getState().show('notice', commit ? `Committed ${commit.slice(0, 7)}.` : 'Nothing to commit.');
        return true;
      } catch (error) {
        showRequestError(error);
        return false;
      }
    },

    review: async (threadId, target) => {
      try {
        await client.request('review/start', { threadId, target });
        return { started: true };
      } catch (error) {
        if (error instanceof RpcError && error.reason === 'review.unknownBranch' && target.type === 'baseBranch') {
          return { started: false, refusal: `There is no branch named “${target.branch}” in this repository. Check the name, or fetch it first.` };
        }
        if (error instanceof RpcError && error.reason === 'review.unknownCommit' && target.type === 'commit') {
          return { started: false, refusal: `There is no commit “${target.sha}” in this repository. Paste a sha from git log.` };
        }
        showRequestError(error);
        return { started: false, refusal: null };
      }
    },

    readWorktree: async (threadId) => {
      try {
        const { worktree } = await client.request('thread/worktree/read', { threadId });
        set((state) => ({ worktrees: { ...state.worktrees, [threadId]: worktree } }));
      } catch (error) {
        showRequestError(error);
      }
    },

    merge: async (threadId) => {
      // Read afresh: the confirmation must name what is on the branch now.
      await get().readWorktree(threadId);
      const worktree = get().worktrees[threadId];
      if (!worktree) return;
      const yes = await useConfirmStore.getState().ask({
        title: `Merge into ${worktree.baseBranch}?`,
        message: `Commits what the agent left uncommitted, then merges ${worktree.branch} into ${worktree.baseBranch} in ${worktree.mainRoot}. A conflict stops the merge and changes nothing.`,
        confirmLabel: 'Merge',
        danger: false,
      });
      if (!yes) return;
      try {
        const { outcome } = await client.request('thread/worktree/merge', { threadId });
        if (outcome.status === 'conflict') {
          useToastStore.getState().show('error', `Not merged: ${outcome.files.join(', ')} ${outcome.files.length === 1 ? 'conflicts' : 'conflict'} with ${worktree.baseBranch}. Nothing was changed; resolve it in the copy or your checkout, then merge again.`);
        } else {
          useToastStore.getState().show('notice', outcome.how === 'up-to-date' ? `${worktree.baseBranch} already has these changes.` : `Merged into ${worktree.baseBranch}.`);
        }
      } catch (error) {
        showRequestError(error);
      }
      await get().readWorktree(threadId);
    },

    keep: async (threadId) => {
      // Read afresh: the confirmation must name what is on the branch now.
      await get().readWorktree(threadId);
      const worktree = get().worktrees[threadId];
      if (!worktree) return;
      const yes = await useConfirmStore.getState().ask({
        title: 'Close the copy and keep its branch?',
        message: `Removes the folder ${worktree.path}. Uncommitted changes are committed to ${worktree.branch} first, so the branch keeps everything.`,
        confirmLabel: 'Keep branch',
        danger: false,
      });
      if (!yes) return;
      try {
        const { branch } = await client.request('thread/worktree/keep', { threadId });
        useToastStore.getState().show('notice', `The copy is closed; its work is on branch ${branch}.`);
      } catch (error) {
        showRequestError(error);
      }
      await get().readWorktree(threadId);
    },

    discard: async (threadId) => {
      // Read afresh: the confirmation must name what is on the branch now.
      await get().readWorktree(threadId);
      const worktree = get().worktrees[threadId];
      if (!worktree) return;
      const lost = [
        ...worktree.unmergedCommits.map((commit) => `commit ${commit.sha.slice(0, 7)} “${commit.subject}”`),
        ...worktree.uncommittedPaths.map((file) => `uncommitted ${file}`),
      ];
      const yes = await useConfirmStore.getState().ask({
        title: 'Discard the copy and its branch?',
        message:
          lost.length === 0
            ? `Removes ${worktree.path} and branch ${worktree.branch}. Nothing on it is unmerged.`
            : `Removes ${worktree.path} and branch ${worktree.branch}. This is lost for good: ${lost.join('; ')}.`,
        confirmLabel: 'Discard',
        danger: true,
      });
      if (!yes) return;
      try {
        await client.request('thread/worktree/discard', { threadId });
        useToastStore.getState().show('notice', `Discarded ${worktree.branch}.`);
      } catch (error) {
        showRequestError(error);
      }
      await get().readWorktree(threadId);
    },
  }));

  // A new thread may be a new project; a turn's edits change the open Changes panel.
  client.on('thread/started', () => void store.getState().refresh());
  const reloadChanges = (threadId: string) => {
    const open = store.getState().changes;
    if (open?.threadId === threadId && open.load !== 'loading') void store.getState().loadChanges(threadId, open.sinceTurnId);
  };
  client.on('turn/diff/updated', ({ threadId }) => reloadChanges(threadId));
  client.on('turn/completed', ({ threadId }) => reloadChanges(threadId));
  return store;
}
