import { z } from 'zod';
import { ToolCallOutcome } from './command-execution.js';

/** Codex `PatchChangeKind`: what a patch does to one file. */
export const PatchChangeKind = z.discriminatedUnion('type', [
  z.object({ type: z.literal('add') }),
  z.object({ type: z.literal('delete') }),
  z.object({ type: z.literal('update'), move_path: z.string().nullable() }),
]);
export type PatchChangeKind = z.infer<typeof PatchChangeKind>;

/** Codex `v2/FileUpdateChange`: `diff` is the content for add/delete, unified hunks for update. */
export const FileUpdateChange = z.object({ path: z.string(), kind: PatchChangeKind, diff: z.string() });
export type FileUpdateChange = z.infer<typeof FileUpdateChange>;

/** Codex `PatchApplyStatus`. */
export const PatchApplyStatus = z.enum(['inProgress', 'completed', 'failed', 'declined']);
export type PatchApplyStatus = z.infer<typeof PatchApplyStatus>;

/** Codex `FileChangeApprovalDecision` (every variant; a subset of the command decisions). */
/**
 * Wheelhouse's file-change approval `reason` ends with this label and the
 * files in words ("… Files: changed a.ts, new b.ts"), so a client without the
 * diff (the approvals inbox) can name them.
 */
export const PATCH_FILES_LABEL = 'Files:';

export const FileChangeApprovalDecision = z.enum(['accept', 'acceptForSession', 'decline', 'cancel']);
export type FileChangeApprovalDecision = z.infer<typeof FileChangeApprovalDecision>;

/**
 * The `fileChange` item fields (Codex `FileChangeThreadItem`: `changes`,
 * `status`), plus what Wheelhouse needs to rebuild the model's history and
 * to explain a failure: the call id, the patch, and the answer the model got.
 */
export const fileChangeFields = {
  type: z.literal('fileChange'),
  changes: z.array(FileUpdateChange),
  status: PatchApplyStatus,
  /** Wheelhouse: the model's tool call this item answers. */
  callId: z.string(),
  arguments: z.unknown(),
  /** Wheelhouse: what the model was told (applied, declined, or which hunk failed); null until the call returned. */
  modelOutput: z.string().nullable(),
  /** Wheelhouse: who settled it when it asked or was refused; null when it simply applied; absent on older items. */
  outcome: ToolCallOutcome.nullable().optional(),
  /** Wheelhouse: the machine whose files it changes (an environment id, paths are there); absent: this computer. */
  environmentId: z.string().optional(),
};
