import { z } from 'zod';
import { defineMethod, oneAtATime, perThread } from '../define.js';
import { AskForApproval, SandboxMode } from '../thread.js';

/**
 * Wheelhouse's projects (a folder per thread), the changes a thread made, undo, and the
 * separate copies (git worktrees) agents work in. Ours, beside Codex's methods.
 */

const ThreadId = z.string().min(1).max(200);
const Path = z.string().min(1).max(4096);
/** A path relative to the project's top folder, as git names it. */
const RelativePath = z.string().min(1).max(4096).refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be a path inside the project');

/** What a project remembers for its new threads (config.toml `[projects."<path>"]`). */
export const ProjectSettings = z.object({
  model: z.string().max(200).nullable(),
  modelProvider: z.string().max(200).nullable(),
  sandbox: SandboxMode.nullable(),
  approvalPolicy: AskForApproval.nullable(),
});
export type ProjectSettings = z.infer<typeof ProjectSettings>;

export const RepositoryState = z.object({
  /** The work tree's top folder. */
  root: z.string(),
  /** The person's checkout (differs from `root` in a separate copy). */
  mainRoot: z.string(),
  /** Null when HEAD is detached. */
  branch: z.string().nullable(),
  /** Uncommitted changes, untracked files included. */
  dirty: z.boolean(),
});
export type RepositoryState = z.infer<typeof RepositoryState>;

/**
 * Codex's Project: Wheelhouse's are the folders threads work in (a separate copy counts
 * as the folder it was copied from), so `id` is the folder's path and there is one root.
 * Wheelhouse adds `path` and `threadIds`.
 */
export const Project = z.object({
  id: z.string(),
  name: z.string(),
  roots: z.array(z.object({ path: z.string() })),
  metadata: z.record(z.string(), z.string()),
  /** Place in the list (newest activity first). */
  position: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  /** Newest thread's last update (Unix seconds); null when it has none. */
  recencyAt: z.number().int().nullable(),
  path: z.string(),
  /** Threads working in it or in a separate copy of it, newest first. */
  threadIds: z.array(z.string()),
});
export type Project = z.infer<typeof Project>;

export const ProjectListParams = z.object({
  cursor: z.string().max(100).nullable().optional(),
  limit: z.number().int().min(0).nullable().optional(),
  sortKey: z.enum(['position', 'recencyAt']).nullable().optional(),
  sortDirection: z.enum(['asc', 'desc']).nullable().optional(),
});

/** One file a thread changed, with its unified diff. */
export const ChangedFile = z.object({
  path: z.string(),
  /** The path before a rename; null otherwise. */
  oldPath: z.string().nullable(),
  status: z.enum(['added', 'deleted', 'modified', 'renamed', 'typeChanged']),
  /** Lines added and removed; null for a binary file. */
  added: z.number().int().nullable(),
  removed: z.number().int().nullable(),
  binary: z.boolean(),
  /** The diff is too large to show: `diff` is empty. */
  large: z.boolean(),
  diff: z.string(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** A turn with a checkpoint from before its first change. */
export const TurnCheckpoint = z.object({ turnId: z.string(), createdAt: z.number().int() });
export type TurnCheckpoint = z.infer<typeof TurnCheckpoint>;

export const ThreadChangesReadParams = z.object({
  threadId: ThreadId,
  /** Changes since the checkpoint before this turn; default: since the thread's first change. */
  sinceTurnId: z.string().min(1).max(200).nullable().optional(),
});
export const ThreadChangesReadResult = z.object({
  /** Turns that changed files (or ran commands that might have), oldest first. */
  checkpoints: z.array(TurnCheckpoint),
  /** The turn the changes are counted from; null when the thread changed nothing yet. */
  sinceTurnId: z.string().nullable(),
  /** Files that differ between that checkpoint and the folder now. */
  files: z.array(ChangedFile),
  /** Why this folder has no checkpoints (a plain folder too large to copy); null when it has. */
  unavailable: z.string().nullable(),
});
export type ThreadChangesReadResult = z.infer<typeof ThreadChangesReadResult>;

export const ThreadChangesRevertParams = z.object({
  threadId: ThreadId,
  /** Undo this turn's changes; default: everything the thread changed. */
  turnId: z.string().min(1).max(200).nullable().optional(),
  /** Only these files. */
  paths: z.array(RelativePath).min(1).max(10_000).nullable().optional(),
  /**
   * Only these hunks: each as `thread/changes/read` showed it (from its `@@` line to the next),
   * of the changes since the checkpoint before `turnId` (default: the thread's start). A hunk
   * no longer in those changes (the file changed since) is refused and nothing is written.
   */
  hunks: z
    .array(z.object({ path: RelativePath, hunk: z.string().min(1).max(1_000_000).refine((text) => text.startsWith('@@ '), 'a hunk starts with its @@ line') }))
    .min(1)
    .max(100)
    .nullable()
    .optional(),
});
export const ThreadChangesRevertResult = z.object({ restored: z.array(z.string()) });

/** `data.reason` of a revert refused because files changed after the turn (`data.files` names them). */
export const CHANGED_SINCE = 'changes.changedSince' as const;

export const ThreadChangesCommitParams = z.object({
  threadId: ThreadId,
  message: z.string().trim().min(1, 'the commit message must not be empty').max(10_000),
  paths: z.array(RelativePath).min(1).max(10_000).nullable().optional(),
});
export const ThreadChangesCommitResult = z.object({ commit: z.string().nullable() });

export const BranchCommit = z.object({ sha: z.string(), subject: z.string() });

/** A thread's separate copy (git worktree) on its own branch. */
export const Worktree = z.object({
  path: z.string(),
  branch: z.string(),
  /** The branch it was made from: merge goes back into it. */
  baseBranch: z.string(),
  /** The person's checkout. */
  mainRoot: z.string(),
  unmergedCommits: z.array(BranchCommit),
  uncommittedPaths: z.array(z.string()),
});
export type Worktree = z.infer<typeof Worktree>;

export const ThreadIdOnly = z.object({ threadId: ThreadId });
export const ThreadWorktreeMergeParams = z.object({
  threadId: ThreadId,
  /** For the commit of changes not yet committed (default: the thread's name). */
  message: z.string().trim().min(1).max(10_000).nullable().optional(),
});
export const MergeOutcome = z.discriminatedUnion('status', [
  z.object({ status: z.literal('merged'), how: z.enum(['fast-forward', 'merge-commit', 'up-to-date']), commit: z.string() }),
  /** Nothing changed: the merge was aborted. */
  z.object({ status: z.literal('conflict'), files: z.array(z.string()) }),
]);
export type MergeOutcome = z.infer<typeof MergeOutcome>;

export const projectMethods = {
  'project/list': defineMethod(
    ProjectListParams,
    z.object({ data: z.array(Project), nextCursor: z.string().nullable() }),
    'Folders threads work in, with their threads (newest activity first).',
  ),
  'project/read': defineMethod(z.object({ projectId: z.string().min(1).max(4096) }), z.object({ project: Project }), 'One project by id (its folder).'),
  'project/state/read': defineMethod(
    z.object({ path: Path }),
    z.object({ path: z.string(), name: z.string(), repository: RepositoryState.nullable(), settings: ProjectSettings }),
    "A folder's repository state (branch, uncommitted changes) and remembered settings.",
  ),
  'project/settings/write': defineMethod(
    z.object({ path: Path, settings: ProjectSettings.partial() }),
    z.object({ settings: ProjectSettings }),
    "Remember settings for a folder's new threads (null forgets one).",
    oneAtATime('config'),
  ),
  'thread/changes/read': defineMethod(ThreadChangesReadParams, ThreadChangesReadResult, 'Files a thread changed, with their diffs.', perThread),
  'thread/changes/revert': defineMethod(
    ThreadChangesRevertParams,
    ThreadChangesRevertResult,
    "Put a turn's (or the whole thread's) changes back as they were; refuses files changed since.",
    perThread,
  ),
  'thread/changes/commit': defineMethod(ThreadChangesCommitParams, ThreadChangesCommitResult, 'Commit the thread folder’s changes (author from git config); never pushes.', perThread),
  'thread/worktree/read': defineMethod(ThreadIdOnly, z.object({ worktree: Worktree.nullable() }), "The thread's separate copy, its branch and unmerged commits.", perThread),
  'thread/worktree/merge': defineMethod(ThreadWorktreeMergeParams, z.object({ outcome: MergeOutcome }), 'Merge the copy’s branch into the branch it came from; conflicts are reported, never resolved.', perThread),
  'thread/worktree/keep': defineMethod(ThreadIdOnly, z.object({ branch: z.string() }), 'Remove the copy’s folder and keep its branch.', perThread),
  'thread/worktree/discard': defineMethod(ThreadIdOnly, z.object({ branch: z.string(), discardedCommits: z.number().int() }), 'Remove the copy and delete its branch.', perThread),
} as const;
