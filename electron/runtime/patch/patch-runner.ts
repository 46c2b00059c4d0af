import fs from 'node:fs/promises';
import path from 'node:path';
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

/** An apply_patch call to record: run with its checked patch, or refused before it ran. */
export type PatchCall = { readonly args: ApplyPatchArgs; readonly permission: PermissionHooks } | { readonly refusal: Refusal };

export interface PatchRunnerDeps {
  readonly approvals: ApprovalBroker;
  readonly events: EventLog;
  readonly settingsOf: (threadId: string) => Promise<{ approvalPolicy: AskForApproval; sandbox: SandboxMode; machine?: { readonly environmentId: string; readonly cwd: string } | null }>;
  readonly newId: () => string;
  readonly now: () => number;
}

/**
 * The model's `apply_patch`: checks the whole patch against the files,
 * shows it as a `fileChange` item, asks the person when the thread's policy
 * says so (`item/fileChange/requestApproval`), then writes all of it or
 * nothing. The model reads what changed, or why nothing did.
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
    const tracker = new FileChangeItemTracker(turn, this.deps.events, this.deps.now, { id: this.deps.newId(), callId: call.id, arguments: input });
    if ('refusal' in mode) {
      const { refusal } = mode;
      if (refusal.kind === 'invalidArguments') return this.end(tracker, 'failed', `${refusal.message}. Send {"input": "*** Begin Patch\\n...\\n*** End Patch"}.`);
      if (refusal.kind === 'blocked') return this.end(tracker, 'declined', `Not applied: ${refusal.text}`, { outcome: refusal.outcome });
      return this.end(tracker, 'declined', 'Not applied: the turn was stopped before the patch was checked.', { outcome: { by: 'turnEnded' } });
    }
    const { permission } = mode;
    const patch = mode.args.input;
    const settings = await this.deps.settingsOf(turn.threadId);
    if (settings.machine) {
      // This computer's folder is not the thread's: patching it would change the wrong files.
      return this.end(
        tracker,
        'failed',
        `Not applied: this thread works on ${settings.machine.environmentId} (${settings.machine.cwd}), and apply_patch edits files on this computer only so far. Change the files there with exec_command instead (for example a here-document, sed, or git apply).`,
      );
    }
    const outsideAllowed = settings.sandbox === 'danger-full-access';
    let changes: readonly FileUpdateChange[];
    try {
      changes = (await preparePatch(turn.cwd, patch, { outsideAllowed })).changes;
    } catch (error) {
      return this.end(tracker, 'failed', failureText(error));
    }
    const root = await fs.realpath(turn.cwd);
    // What the sandbox lets commands write: the thread's folder, except its .git (as Codex's writable roots).
    const insideWorkspace = changes.every((change) =>
      [change.path, change.kind.type === 'update' ? change.kind.move_path : null].every((file) => file === null || (isInside(root, file) && !isInside(path.join(root, '.git'), file))),
    );
    const requirement = patchRequirement({ ...settings, insideWorkspace });
    if (requirement.type === 'refuse') {
      return this.end(tracker, 'declined', `Not applied: ${requirement.reason}.`, { changes, outcome: { by: 'policy', reason: requirement.reason } });
    }
    tracker.announce(changes);
    if (requirement.type === 'ask' && !(insideWorkspace && this.deps.approvals.coversFileChange(turn.threadId, root))) {
      const answer = await this.askPerson(turn, tracker, requirement.reason, root, changes, permission);
      if (answer !== 'apply') return answer;
    }
    try {
      const written = await applyPatch(turn.cwd, patch, { outsideAllowed });
      return this.end(tracker, 'completed', successText(root, written), { changes: written });
    } catch (error) {
      return this.end(tracker, 'failed', failureText(error));
    }
  }

  private async askPerson(
    turn: ActiveTurn,
    tracker: FileChangeItemTracker,
    reason: string,
    root: string,
    changes: readonly FileUpdateChange[],
    permission: PermissionHooks,
  ): Promise<'apply' | ToolResult> {
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
      { threadId: turn.threadId, turnId: turn.id, itemId: item.id, startedAtMs: this.deps.now(), reason: `${reason}. ${PATCH_FILES_LABEL} ${fileList(root, changes)}`, grantRoot: null },
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
    if (answer === 'acceptForSession') this.deps.approvals.grantFileChanges(turn.threadId, root);
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

function isInside(root: string, file: string): boolean {
  return file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function shown(root: string, file: string): string {
  return isInside(root, file) ? path.relative(root, file) : file;
}

/** The files of a patch in words, for the person asked about it: "changed src/a.ts, new new.txt, deleted old.txt". */
function fileList(root: string, changes: readonly FileUpdateChange[]): string {
  return changes
    .map((change) => {
      if (change.kind.type === 'add') return `new ${shown(root, change.path)}`;
      if (change.kind.type === 'delete') return `deleted ${shown(root, change.path)}`;
      if (change.kind.move_path) return `moved ${shown(root, change.path)} to ${shown(root, change.kind.move_path)}`;
      return `changed ${shown(root, change.path)}`;
    })
    .join(', ');
}

/** `A new.txt, M src/a.ts -> src/b.ts, D old.txt`: what the model is told, in apply_patch's own terms. */
function summary(root: string, changes: readonly FileUpdateChange[]): string {
  return changes
    .map((change) => {
      if (change.kind.type === 'add') return `A ${shown(root, change.path)}`;
      if (change.kind.type === 'delete') return `D ${shown(root, change.path)}`;
      return `M ${shown(root, change.path)}${change.kind.move_path ? ` -> ${shown(root, change.kind.move_path)}` : ''}`;
    })
    .join(', ');
}

function successText(root: string, changes: readonly FileUpdateChange[]): string {
  return `Success. Changed these files:\n${summary(root, changes).split(', ').join('\n')}`;
}

function failureText(error: unknown): string {
  if (error instanceof PatchError) return `Not applied; no file was changed. apply_patch verification failed: ${error.message}`;
  return `Not applied; no file was changed: ${error instanceof Error ? error.message : String(error)}`;
}
