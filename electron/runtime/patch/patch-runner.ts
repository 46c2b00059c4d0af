import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileUpdateChange, ToolCallOutcome } from '../../../shared/protocol/index.js';
import type { ModelToolCall } from '../../model/types.js';
import type { ApprovalBroker } from '../approvals/approval-broker.js';
import type { EventLog } from '../event-log.js';
import { blockedText, hookOutcome, type BlockReason, type HookDispatcher } from '../hooks/hook-dispatcher.js';
import { hookContextOf } from '../hooks/turn-hooks.js';
import type { AskForApproval, SandboxMode } from '../policy/policy-types.js';
import type { ActiveTurn } from '../active-turn.js';
import { applyPatch, PatchError, preparePatch } from './apply-patch.js';
import { patchRequirement } from './patch-approval.js';
import { FileChangeItemTracker } from './patch-item.js';
import { PATCH_FILES_LABEL } from '../../../shared/protocol/file-change.js';
import { APPLY_PATCH, ApplyPatchArgs } from './patch-tool-spec.js';

export interface PatchRunnerDeps {
  readonly approvals: ApprovalBroker;
  /** PostToolUse after a patch ran; PermissionRequest around its approval. */
  readonly hooks: Pick<HookDispatcher, 'postToolUse' | 'approvalRequested' | 'approvalAnswered'>;
  readonly events: EventLog;
  readonly settingsOf: (threadId: string) => Promise<{ approvalPolicy: AskForApproval; sandbox: SandboxMode }>;
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

  /** `blockedBy` (a PreToolUse hook's refusal) declines the call before anything is checked. */
  async applyPatch(turn: ActiveTurn, call: ModelToolCall, blockedBy: BlockReason | null = null): Promise<void> {
    let raw: unknown = call.arguments;
    try {
      raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      // Refused below with the raw text.
    }
    const tracker = new FileChangeItemTracker(turn, this.deps.events, this.deps.now, { id: this.deps.newId(), callId: call.id, arguments: raw });
    // The model sometimes sends the bare patch instead of {"input": ...}; Codex's freeform tool takes it that way.
    const parsed = ApplyPatchArgs.safeParse(typeof raw === 'string' && raw.trimStart().startsWith('*** Begin Patch') ? { input: raw } : raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.end(turn, call, tracker, 'failed', `Invalid arguments for apply_patch: ${issue ? `${issue.path.join('.') || '(arguments)'}: ${issue.message}` : 'invalid'}. Send {"input": "*** Begin Patch\\n...\\n*** End Patch"}.`);
    }
    if (blockedBy !== null) return this.end(turn, call, tracker, 'declined', `Not applied: ${blockedText(blockedBy)}`, { outcome: hookOutcome(blockedBy), runPostHooks: false });
    const patch = parsed.data.input;
    const settings = await this.deps.settingsOf(turn.threadId);
    const outsideAllowed = settings.sandbox === 'danger-full-access';
    let changes: readonly FileUpdateChange[];
    try {
      changes = (await preparePatch(turn.cwd, patch, { outsideAllowed })).changes;
    } catch (error) {
      return this.end(turn, call, tracker, 'failed', failureText(error));
    }
    const root = await fs.realpath(turn.cwd);
    // What the sandbox lets commands write: the thread's folder, except its .git (as Codex's writable roots).
    const insideWorkspace = changes.every((change) =>
      [change.path, change.kind.type === 'update' ? change.kind.move_path : null].every((file) => file === null || (isInside(root, file) && !isInside(path.join(root, '.git'), file))),
    );
    const requirement = patchRequirement({ ...settings, insideWorkspace });
    if (requirement.type === 'refuse') {
      return this.end(turn, call, tracker, 'declined', `Not applied: ${requirement.reason}.`, { changes, outcome: { by: 'policy', reason: requirement.reason } });
    }
    tracker.announce(changes);
    if (requirement.type === 'ask' && !(insideWorkspace && this.deps.approvals.coversFileChange(turn.threadId, root))) {
      const answer = await this.askPerson(turn, call, tracker, requirement.reason, root, changes);
      if (answer !== 'apply') return;
    }
    try {
      const written = await applyPatch(turn.cwd, patch, { outsideAllowed });
      return this.end(turn, call, tracker, 'completed', successText(root, written), { changes: written });
    } catch (error) {
      return this.end(turn, call, tracker, 'failed', failureText(error));
    }
  }

  private async askPerson(
    turn: ActiveTurn,
    call: ModelToolCall,
    tracker: FileChangeItemTracker,
    reason: string,
    root: string,
    changes: readonly FileUpdateChange[],
  ): Promise<'apply' | 'stop'> {
    const item = tracker.snapshot;
    const hookContext = hookContextOf(turn);
    const hookDetails = { requestId: item.id, toolName: APPLY_PATCH, command: null, reason };
    const blocked = await this.deps.hooks.approvalRequested(hookContext, hookDetails);
    if (blocked) {
      this.end(turn, call, tracker, 'declined', `Not applied: ${blockedText(blocked)}`, { outcome: hookOutcome(blocked) });
      await this.deps.hooks.approvalAnswered(hookContext, hookDetails, 'decline');
      return 'stop';
    }
    const outcome = await this.deps.approvals.requestFileChange(
      turn,
      { threadId: turn.threadId, turnId: turn.id, itemId: item.id, startedAtMs: this.deps.now(), reason: `${reason}. ${PATCH_FILES_LABEL} ${fileList(root, changes)}`, grantRoot: null },
      turn.controller.signal,
    );
    if (outcome.kind === 'ended') {
      this.end(turn, call, tracker, 'declined', 'Not applied: the turn was stopped before the patch was approved.', { outcome: { by: 'turnEnded' }, runPostHooks: false });
      return 'stop';
    }
    const answer = typeof outcome.decision === 'string' ? outcome.decision : 'decline';
    await this.deps.hooks.approvalAnswered(hookContext, hookDetails, answer);
    if (answer === 'decline') {
      this.end(turn, call, tracker, 'declined', 'Not applied: the person declined this patch; no file was changed. Do not retry it; continue another way or ask them.', {
        outcome: { by: 'person', answer: 'declined', host: null },
      });
      return 'stop';
    }
    if (answer === 'cancel') {
      this.end(turn, call, tracker, 'declined', 'Not applied: the person declined this patch and stopped the turn.', {
        outcome: { by: 'person', answer: 'declinedAndStopped', host: null },
        runPostHooks: false,
      });
      turn.controller.abort();
      return 'stop';
    }
    if (answer === 'acceptForSession') this.deps.approvals.grantFileChanges(turn.threadId, root);
    tracker.settle({ by: 'person', answer: answer === 'acceptForSession' ? 'approvedForThread' : 'approved', host: null });
    return 'apply';
  }

  /**
   * Ends the item: the model reads `modelOutput`; a person sees the outcome
   * (who decided) instead. PostToolUse hooks hear the result of every call
   * that was not blocked or stopped.
   */
  private end(
    turn: ActiveTurn,
    call: ModelToolCall,
    tracker: FileChangeItemTracker,
    status: 'completed' | 'failed' | 'declined',
    modelOutput: string,
    options: { changes?: readonly FileUpdateChange[]; outcome?: ToolCallOutcome; runPostHooks?: boolean } = {},
  ): Promise<void> | void {
    const { changes, outcome, runPostHooks = true } = options;
    if (outcome) tracker.settle(outcome);
    tracker.finish(status, modelOutput, changes);
    if (!runPostHooks) return;
    return this.deps.hooks.postToolUse(hookContextOf(turn), { name: APPLY_PATCH, callId: call.id, argumentsJson: call.arguments }, { success: status === 'completed', output: modelOutput });
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
