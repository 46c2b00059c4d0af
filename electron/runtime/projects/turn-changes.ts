import {
  CHANGED_SINCE,
  RpcError,
  type HandlerParamsOf,
  type ResultOf,
  type TurnCheckpoint,
} from '../../../shared/protocol/index.js';
import { ChangedSinceError, hunksOf, type Checkpoints, type CheckpointWorkspace } from '../../git/checkpoints.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';

/** The part of a running turn that changes care about. */
export interface ChangingTurn {
  readonly id: string;
  readonly threadId: string;
  readonly cwd: string;
  readonly ephemeral: boolean;
}

export interface TurnChangesDeps {
  readonly checkpoints: Checkpoints;
  readonly events: EventLog;
  /** The thread's folder and store (throws for an unknown thread). */
  readonly threadOf: (threadId: string) => { readonly cwd: string; readonly store: StateStore };
  /** The running turn of a thread, if any. */
  readonly activeTurnOf: (threadId: string) => string | null;
  readonly now: () => number;
  readonly logError?: (message: string, error: unknown) => void;
}

interface TurnState {
  readonly workspace: CheckpointWorkspace | null;
  readonly before: string | null;
  /** The last diff announced, so an unchanged one is not sent again. */
  lastDiff: string;
}

/** `refs/wheelhouse/checkpoints/<thread>/<turn>/{before,after}`: private refs, never on the person's branches. */
export function checkpointRef(threadId: string, turnId: string, which: 'before' | 'after'): string {
  return `${threadRefPrefix(threadId)}${turnId}/${which}`;
}

export function threadRefPrefix(threadId: string): string {
  return `refs/wheelhouse/checkpoints/${threadId}/`;
}

/**
 * Checkpoints around the file changes of each turn, `turn/diff/updated`, and the
 * changes a thread made (read, undo, commit). Before a turn's first change (a patch or
 * an agent command) the folder's files are kept as a tree on a private ref; after each
 * change the tree "after" is kept too and the turn's unified diff so far is announced.
 * Undo restores only what the turn changed, and only files still as the turn left them.
 */
export class TurnChanges {
  private readonly turns = new Map<string, Promise<TurnState>>();
  private readonly workspaces = new Map<string, Promise<CheckpointWorkspace | null>>();

  constructor(private readonly deps: TurnChangesDeps) {}

  /** Before a change: the turn's checkpoint, once. A failure is logged and never stops the agent (the turn then has no undo). */
  async beforeChange(turn: ChangingTurn): Promise<void> {
    await this.stateOf(turn);
  }

  /** After a change: keeps the turn's result and announces its diff when it changed. */
  async afterChange(turn: ChangingTurn): Promise<void> {
    const state = await this.stateOf(turn);
    if (!state.workspace || !state.before) return;
    try {
      const after = await this.deps.checkpoints.snapshot(state.workspace);
      await this.deps.checkpoints.save(state.workspace, checkpointRef(turn.threadId, turn.id, 'after'), after, `after turn ${turn.id}`);
      const diff = await this.deps.checkpoints.diff(state.workspace, state.before, after);
      if (diff === state.lastDiff) return;
      state.lastDiff = diff;
      // Derived from the checkpoints, which are durable: a client that missed it reads thread/changes/read.
      this.deps.events.publish('turn/diff/updated', { threadId: turn.threadId, turnId: turn.id, diff }, { threadId: turn.threadId, turnId: turn.id, ephemeral: true });
    } catch (error) {
      this.deps.logError?.(`keeping the result of turn ${turn.id}`, error);
    }
  }

  /** Forgets a finished turn's in-memory state (its refs stay). */
  turnEnded(turnId: string): void {
    this.turns.delete(turnId);
  }

  async read(params: HandlerParamsOf<'thread/changes/read'>): Promise<ResultOf<'thread/changes/read'>> {
    const { cwd } = this.deps.threadOf(params.threadId);
    const workspace = await this.workspaceOf(cwd);
    if (!workspace) return { checkpoints: [], sinceTurnId: null, files: [], unavailable: tooLarge(cwd) };
    const checkpoints = await this.checkpointsOf(params.threadId, workspace);
    const since = params.sinceTurnId ? checkpoints.find((c) => c.turnId === params.sinceTurnId) : checkpoints[0];
    if (params.sinceTurnId && !since) throw RpcError.invalidParams(`turn ${params.sinceTurnId} of thread ${params.threadId} changed no files`);
    if (!since) return { checkpoints, sinceTurnId: null, files: [], unavailable: null };
    const before = await this.deps.checkpoints.treeOf(workspace, checkpointRef(params.threadId, since.turnId, 'before'));
    const now = await this.deps.checkpoints.snapshot(workspace);
    const files = before ? await this.deps.checkpoints.changedFiles(workspace, before, now) : [];
    return { checkpoints, sinceTurnId: since.turnId, files, unavailable: null };
  }

  async revert(params: HandlerParamsOf<'thread/changes/revert'>): Promise<ResultOf<'thread/changes/revert'>> {
    const { cwd } = this.deps.threadOf(params.threadId);
    if (this.deps.activeTurnOf(params.threadId)) {
      throw RpcError.because('changes.turnRunning', 'The agent is still working in this thread; stop the turn, then undo.');
    }
    const workspace = await this.workspaceOf(cwd);
    if (!workspace) throw RpcError.because('changes.unavailable', tooLarge(cwd));
    const checkpoints = await this.checkpointsOf(params.threadId, workspace);
    const first = params.turnId ? checkpoints.find((c) => c.turnId === params.turnId) : checkpoints[0];
    if (!first) {
      if (params.turnId) throw RpcError.invalidParams(`turn ${params.turnId} of thread ${params.threadId} has nothing to undo`);
      return { restored: [] };
    }
    const last = params.turnId ? first : checkpoints[checkpoints.length - 1]!;
    if (params.hunks) {
      const lastAfter = checkpointRef(params.threadId, checkpoints[checkpoints.length - 1]!.turnId, 'after');
      return this.revertHunks(workspace, checkpointRef(params.threadId, first.turnId, 'before'), lastAfter, params.hunks);
    }
    const before = await this.deps.checkpoints.treeOf(workspace, checkpointRef(params.threadId, first.turnId, 'before'));
    const after = await this.deps.checkpoints.treeOf(workspace, checkpointRef(params.threadId, last.turnId, 'after'));
    if (!before || !after) return { restored: [] };
    try {
      const restored = await this.deps.checkpoints.restore(workspace, before, after, params.paths ?? undefined);
      return { restored };
    } catch (error) {
      if (error instanceof ChangedSinceError) {
        throw RpcError.because(
          CHANGED_SINCE,
          `Not undone: ${error.files.join(', ')} changed after the agent's edit. Look at both versions, or undo the other files only.`,
          { files: error.files },
        );
      }
      throw error;
    }
  }

  /**
   * Takes single hunks of the changes since `beforeRef` back. Each must still be in those
   * changes exactly as the person saw it; a file changed since refuses all of them.
   */
  private async revertHunks(
    workspace: CheckpointWorkspace,
    beforeRef: string,
    lastAfterRef: string,
    wanted: ReadonlyArray<{ readonly path: string; readonly hunk: string }>,
  ): Promise<ResultOf<'thread/changes/revert'>> {
    const before = await this.deps.checkpoints.treeOf(workspace, beforeRef);
    if (!before) return { restored: [] };
    const now = await this.deps.checkpoints.snapshot(workspace);
    const paths = [...new Set(wanted.map((entry) => entry.path))];
    // Files still as the thread's last turn left them: what is undone here counts as the thread's
    // doing, so a later undo of the turn or thread still takes them back.
    const lastAfter = await this.deps.checkpoints.treeOf(workspace, lastAfterRef);
    const asLeft = lastAfter !== null && (await this.deps.checkpoints.diff(workspace, lastAfter, now, paths)) === '';
    const byPath = new Map<string, string[]>();
    for (const { path, hunk } of wanted) byPath.set(path, [...(byPath.get(path) ?? []), hunk]);
    const pieces: string[] = [];
    const gone: string[] = [];
    for (const [path, hunks] of byPath) {
      // A renamed file's hunks are taken back in its new place; the name stays.
      const current = hunksOf(await this.deps.checkpoints.diff(workspace, before, now, [path]));
      const missing = hunks.filter((hunk) => !current.hunks.includes(hunk));
      if (missing.length > 0 || current.hunks.length === 0) {
        gone.push(path);
        continue;
      }
      // A new or deleted file's one hunk goes back with its own header (the file is removed or made again).
      const wholeFile = /^(new|deleted) file mode /m.test(current.header);
      pieces.push(`${wholeFile ? current.header : `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n`}${hunks.join('')}`);
    }
    try {
      if (gone.length > 0) throw new ChangedSinceError(gone);
      await this.deps.checkpoints.revertPatch(workspace, pieces.join(''));
      if (asLeft && lastAfter) {
        const updated = await this.deps.checkpoints.treeWithFilesNow(workspace, lastAfter, paths);
        await this.deps.checkpoints.save(workspace, lastAfterRef, updated, 'after a part was undone');
      }
      return { restored: paths };
    } catch (error) {
      if (error instanceof ChangedSinceError) {
        throw RpcError.because(
          CHANGED_SINCE,
          `Not undone: ${error.files.join(', ')} changed after the changes you looked at. Read the changes again, then choose the part to undo.`,
          { files: error.files },
        );
      }
      throw error;
    }
  }

  /** Removes a thread's checkpoints from the repository (or plain folder store) at `cwd`. */
  async forgetThread(threadId: string, cwd: string): Promise<void> {
    const workspace = await this.workspaceOf(cwd);
    if (workspace) await this.deps.checkpoints.dropRefs(workspace, threadRefPrefix(threadId));
  }

  /** The folder's checkpoint store (cached per folder: a plain folder's size is counted once). */
  workspaceOf(cwd: string): Promise<CheckpointWorkspace | null> {
    let found = this.workspaces.get(cwd);
    if (!found) {
      found = this.deps.checkpoints.workspaceOf(cwd);
      this.workspaces.set(cwd, found);
      found.catch(() => this.workspaces.delete(cwd));
    }
    return found;
  }

  /** Turns of the thread with a checkpoint, in the thread's order. */
  private async checkpointsOf(threadId: string, workspace: CheckpointWorkspace): Promise<TurnCheckpoint[]> {
    const { store } = this.deps.threadOf(threadId);
    const turns = store.turns.list(threadId);
    const found: TurnCheckpoint[] = [];
    for (const turn of turns) {
      if (!(await this.deps.checkpoints.treeOf(workspace, checkpointRef(threadId, turn.id, 'before')))) continue;
      found.push({ turnId: turn.id, createdAt: Math.floor((turn.startedAtMs ?? 0) / 1000) });
    }
    return found;
  }

  private stateOf(turn: ChangingTurn): Promise<TurnState> {
    let state = this.turns.get(turn.id);
    if (!state) {
      state = this.checkpointBefore(turn);
      this.turns.set(turn.id, state);
    }
    return state;
  }

  private async checkpointBefore(turn: ChangingTurn): Promise<TurnState> {
    try {
      const workspace = await this.workspaceOf(turn.cwd);
      if (!workspace) return { workspace: null, before: null, lastDiff: '' };
      const before = await this.deps.checkpoints.snapshot(workspace);
      await this.deps.checkpoints.save(workspace, checkpointRef(turn.threadId, turn.id, 'before'), before, `before turn ${turn.id}`);
      return { workspace, before, lastDiff: '' };
    } catch (error) {
      this.deps.logError?.(`checkpoint before turn ${turn.id}`, error);
      return { workspace: null, before: null, lastDiff: '' };
    }
  }
}

function tooLarge(cwd: string): string {
  return `${cwd} is not a git repository and has too many files to keep copies of, so changes cannot be shown or undone here. Work in a git repository to get them.`;
}
