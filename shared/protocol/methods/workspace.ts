import { z } from 'zod';
import { defineMethod } from '../define.js';

/**
 * Browsing the machine's folders, so a project folder can be picked from any
 * host (the browser has no native folder dialog that yields a path).
 */

/** Most entries one listing returns; `truncated` says when a folder had more. */
export const MAX_DIRECTORY_ENTRIES = 2_000;

export const WorkspaceDirectoryListParams = z.object({
  /** Absolute path, or `~`-relative; defaults to the home folder. Relative paths resolve against home. */
  path: z.string().min(1).max(4096).nullable().optional(),
  /** Include folders whose name starts with a dot. */
  showHidden: z.boolean().nullable().optional(),
});

export const DirectoryEntry = z.object({
  name: z.string(),
  /** Absolute path of the folder. */
  path: z.string(),
});
export type DirectoryEntry = z.infer<typeof DirectoryEntry>;

export const WorkspaceDirectoryListResult = z.object({
  /** The folder listed, absolute and normalised. */
  path: z.string(),
  /** Its parent folder; null at a filesystem root. */
  parent: z.string().nullable(),
  /** Sub-folders only, sorted by name. */
  entries: z.array(DirectoryEntry),
  truncated: z.boolean(),
});
export type WorkspaceDirectoryListResult = z.infer<typeof WorkspaceDirectoryListResult>;

/** Why a folder could not be listed (`data.reason` of the error). */
export const DirectoryErrorReason = z.enum(['notFound', 'notDirectory', 'unreadable']);
export type DirectoryErrorReason = z.infer<typeof DirectoryErrorReason>;

export const workspaceMethods = {
  'workspace/directory/list': defineMethod(
    WorkspaceDirectoryListParams,
    WorkspaceDirectoryListResult,
    'List the sub-folders of a folder (home by default).',
  ),
} as const;
