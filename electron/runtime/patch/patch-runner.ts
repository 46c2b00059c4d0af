import type { FileUpdateChange, ToolCallOutcome } from '../../../shared/protocol/index.js';
import type { ModelToolCall } from '../../model/types.js';
import type { ApprovalBroker } from '../approvals/approval-broker.js';
import type { EventLog } from '../event-log.js';
import type { AskForApproval, SandboxMode } from '../policy/policy-vocabulary.js';
import type { ActiveTurn } from '../active-turn.js';
import { applyPatch, PatchError, preparePatch } from './apply-patch.js';
import { patchRequirement } from './patch-approval.js';
import { FileChangeItemTracker } from './patch-item.js';
import { PATCH_FILES_LABEL } from '../../../shared/protocol/file-change.js';
import type { PermissionHooks, Refusal, ToolResult } from '../tools/tool-table.js';
import type { ApplyPatchArgs } from './patch-tool-spec.js';
import type { TurnWorkspace, WorkspaceOf } from '../tools/turn-workspace.js';
import type { WorkspaceFiles } from '../../files/workspace-files.js';

/** An apply_patch call to record: run with its checked patch, or refused before it ran. */
export type PatchCall = { readonly args: ApplyPatchArgs; readonly permission: PermissionHooks } | { readonly refusal: Refusal };

export interface PatchRunnerDeps {
  readonly approvals: ApprovalBroker;
  readonly events: EventLog;
  readonly settingsOf: (threadId: string) => Promise<{ approvalPolicy: AskForApproval; sandbox: SandboxMode }>;
  /** The turn's folder and the files there: this computer's, or the SSH machine's its thread works on. */
  readonly workspaceOf: WorkspaceOf;
  readonly newId: () => string;
  readonly now: () => number;
}

/**
 * The model's `apply_patch`: checks the whole patch against the files,
 * shows it as a `fileChange` item, asks the person when the thread's policy
 * says so (`item/fileChange/requestApproval`), then writes all of it or
 * nothing. The model reads what changed, or why nothing did. On an SSH
 * machine the same happens to the files there (over SFTP); everything is
 * decided here before anything is sent, and since this computer's sandbox
 * does not reach that machine, a patch there counts as leaving it, as a
 * command there does.
 */
export class PatchRunner {
  constructor(private readonly deps: PatchRunnerDeps) {}

  /**
   * Records one apply_patch call as its `fileChange` item: applied (with the
   * checked patch and the call's PermissionRequest hooks), or refused before
   * anything was checked (bad arguments, a PreToolUse hook, a stopped turn).
   * Answers what the model was told.
   */
  async applyPatch(turn: ActiveTurn, call: ModelToolCall, input: unknown, mode: PatchCall): Promise<ToolResult> {
    const workspace = await this.deps.workspaceOf(turn);
    const tracker = new FileChangeItemTracker(turn, this.deps.events, this.deps.now, { id: this.deps.newId(), callId: call.id, arguments: input, environmentId: workspace.environmentId });
    if ('refusal' in mode) {
      const { refusal } = mode;
      if (refusal.kind === 'invalidArguments') return this.end(tracker, 'failed', `${refusal.message}. Send {"input": "*** Begin Patch\\n...\\n*** End Patch"}.`);
      if (refusal.kind === 'blocked') return this.end(tracker, 'declined', `Not applied: ${refusal.text}`, { outcome: refusal.outcome });
      return this.end(tracker, 'declined', 'Not applied: the turn was stopped before the patch was checked.', { outcome: { by: 'turnEnded' } });
    }
    const { permission } = mode;
    const patch = mode.args.input;
    const { files, cwd, environmentId } = workspace;
    const settings = await this.deps.settingsOf(turn.threadId);
    const outsideAllowed = settings.sandbox === 'danger-full-access';
    let changes: readonly FileUpdateChange[];
    let root: string;
    try {
      root = await files.realpath(cwd);
      changes = (await preparePatch(files, cwd, patch, { outsideAllowed })).changes;
    } catch (error) {
      return this.end(tracker, 'failed', failureText(error, workspace));
    }
    const path = files.paths;
    // What the sandbox lets commands write: the thread's folder, except its .git (as Codex's writable roots).
    const insideFolder = changes.every((change) =>
      [change.path, change.kind.type === 'update' ? change.kind.move_path : null].every(
        (file) => file === null || (isInside(files, root, file) && !isInside(files, path.join(root, '.git'), file)),
      ),
    );
    // This computer's sandbox does not reach another machine: there every patch leaves it.
    const requirement = patchRequirement({ ...settings, insideWorkspace: insideFolder && environmentId === null, elsewhere: environmentId === null ? null : files.where });
    if (requirement.type === 'refuse') {
      return this.end(tracker, 'declined', `Not applied: ${requirement.reason}.`, { changes, outcome: { by: 'policy', reason: requirement.reason } });
    }
    tracker.announce(changes);
    const grant = grantKey(workspace, root);
    if (requirement.type === 'ask' && !(insideFolder && this.deps.approvals.coversFileChange(turn.threadId, grant))) {
      const answer = await this.askPerson(turn, tracker, requirement.reason, { root, grant, environmentId, files }, changes, permission);
      if (answer !== 'apply') return answer;
    }
    try {
      const written = await applyPatch(files, cwd, patch, { outsideAllowed });
      return this.end(tracker, 'completed', successText(files, root, written), { changes: written });
    } catch (error) {
      return this.end(tracker, 'failed', failureText(error, workspace));
    }
  }

  private async askPerson(
    turn: ActiveTurn,
    tracker: FileChangeItemTracker,
    reason: string,
    where: { readonly root: string; readonly grant: string; readonly environmentId: string | null; readonly files: WorkspaceFiles },
    changes: readonly FileUpdateChange[],
    permission: PermissionHooks,
  ): Promise<'apply' | ToolResult> {
    const { root, grant, environmentId, files } = where;
    const item = tracker.snapshot;
    const hookDetails = { requestId: item.id, command: null, reason };
    const refused = await permission.requested(hookDetails);
    if (refused) {
      const result = this.end(tracker, 'declined', `Not applied: ${refused.text}`, { outcome: refused.outcome });
      await permission.answered(hookDetails, 'decline');
      return result;
    }
    const outcome = await this.deps.approvals.requestFileChange(
      turn,
      {
        threadId: turn.threadId,
        turnId: turn.id,
        itemId: item.id,
        startedAtMs: this.deps.now(),
        reason: `${reason}. ${PATCH_FILES_LABEL} ${fileList(files, root, changes)}`,
        grantRoot: null,
        ...(environmentId ? { environmentId } : {}),
      },
      turn.controller.signal,
    );
    if (outcome.kind === 'ended') {
      return this.end(tracker, 'declined', 'Not applied: the turn was stopped before the patch was approved.', { outcome: { by: 'turnEnded' } });
    }
    const answer = typeof outcome.decision === 'string' ? outcome.decision : 'decline';
    await permission.answered(hookDetails, answer);
    if (answer === 'decline') {
      return this.end(tracker, 'declined', 'Not applied: the person declined this patch; no file was changed. Do not retry it; continue another way or ask them.', {
        outcome: { by: 'person', answer: 'declined', host: null },
      });
    }
    if (answer === 'cancel') {
      const result = this.end(tracker, 'declined', 'Not applied: the person declined this patch and stopped the turn.', {
        outcome: { by: 'person', answer: 'declinedAndStopped', host: null },
      });
      turn.controller.abort();
      return result;
    }
    if (answer === 'acceptForSession') this.deps.approvals.grantFileChanges(turn.threadId, grant);
    tracker.settle({ by: 'person', answer: answer === 'acceptForSession' ? 'approvedForThread' : 'approved', host: null });
    return 'apply';
  }

  /** Ends the item: the model reads `modelOutput`; a person sees the outcome (who decided) instead. */
  private end(
    tracker: FileChangeItemTracker,
    status: 'completed' | 'failed' | 'declined',
    modelOutput: string,
    options: { changes?: readonly FileUpdateChange[]; outcome?: ToolCallOutcome } = {},
  ): ToolResult {
    const { changes, outcome } = options;
    if (outcome) tracker.settle(outcome);
    tracker.finish(status, modelOutput, changes);
    return { success: status === 'completed', output: modelOutput };
  }
}

function isInside(files: WorkspaceFiles, root: string, file: string): boolean {
  const sep = files.paths.sep;
  return file === root || file.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** What "accept for this thread" covers: the folder, named with its machine so a grant for one never covers another's. */
function grantKey(workspace: TurnWorkspace, root: string): string {
  return workspace.environmentId === null ? root : `${workspace.environmentId}:${root}`;
}

function shown(files: WorkspaceFiles, root: string, file: string): string {
  return isInside(files, root, file) ? files.paths.relative(root, file) : file;
}

/** The files of a patch in words, for the person asked about it: "changed src/a.ts, new new.txt, deleted old.txt". */
function fileList(files: WorkspaceFiles, root: string, changes: readonly FileUpdateChange[]): string {
  return changes
    .map((change) => {
      if (change.kind.type === 'add') return `new ${shown(files, root, change.path)}`;
      if (change.kind.type === 'delete') return `deleted ${shown(files, root, change.path)}`;
      if (change.kind.move_path) return `moved ${shown(files, root, change.path)} to ${shown(files, root, change.kind.move_path)}`;
      return `changed ${shown(files, root, change.path)}`;
    })
    .join(', ');
}

/** `A new.txt, M src/a.ts -> src/b.ts, D old.txt`: what the model is told, in apply_patch's own terms. */
function summary(files: WorkspaceFiles, root: string, changes: readonly FileUpdateChange[]): string {
  return changes
    .map((change) => {
      if (change.kind.type === 'add') return `A ${shown(files, root, change.path)}`;
      if (change.kind.type === 'delete') return `D ${shown(files, root, change.path)}`;
      return `M ${shown(files, root, change.path)}${change.kind.move_path ? ` -> ${shown(files, root, change.kind.move_path)}` : ''}`;
    })
    .join(', ');
}

function successText(files: WorkspaceFiles, root: string, changes: readonly FileUpdateChange[]): string {
  return `Success. Changed these files:\n${summary(files, root, changes).split(', ').join('\n')}`;
}

function failureText(error: unknown, workspace: TurnWorkspace): string {
  const partly = error instanceof PatchError && /only these were changed/.test(error.message);
  if (error instanceof PatchError && error.code === 'connection_lost') {
    return `${partly ? 'Partly applied' : 'Not applied'}: ${error.message}. Try again once ${workspace.files.where} is back (its status shows in the thread header).`;
  }
  if (partly) return `Partly applied: ${(error as Error).message}`;
  if (error instanceof PatchError) return `Not applied; no file was changed. apply_patch verification failed: ${error.message}`;
  return `Not applied; no file was changed: ${error instanceof Error ? error.message : String(error)}`;
}
