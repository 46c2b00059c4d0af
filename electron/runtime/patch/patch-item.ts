import type { FileUpdateChange, PatchApplyStatus, ThreadItem, ToolCallOutcome } from '../../../shared/protocol/index.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from '../active-turn.js';

type FileChangeItem = Extract<ThreadItem, { type: 'fileChange' }>;

/**
 * The `fileChange` item of one apply_patch call: announced with the changes
 * the patch would make (so a person sees the diff before deciding), then
 * completed with what was written — or declined/failed, saying why. It is
 * stored in the thread from its announcement on (a window that reloads while
 * the patch waits for approval still shows the diff); one left `inProgress`
 * by a crash is ended at the next start (`endFileChangesOfEarlierRun`).
 */
export class FileChangeItemTracker {
  private item: FileChangeItem;
  private announced = false;

  constructor(
    private readonly turn: ActiveTurn,
    private readonly events: EventLog,
    private readonly now: () => number,
    init: { id: string; callId: string; arguments: unknown; environmentId?: string | null },
  ) {
    const at = now();
    this.item = {
      type: 'fileChange',
      id: init.id,
      turnId: turn.id,
      createdAtMs: at,
      startedAtMs: at,
      completedAtMs: null,
      changes: [],
      status: 'inProgress',
      callId: init.callId,
      arguments: init.arguments,
      modelOutput: null,
      outcome: null,
      ...(init.environmentId ? { environmentId: init.environmentId } : {}),
    };
  }

  /** Who settled the patch (the person's answer, a hook, the policy). */
  settle(outcome: ToolCallOutcome): void {
    this.item = { ...this.item, outcome };
  }

  get snapshot(): FileChangeItem {
    return this.item;
  }

  /** Stores and announces the item with the changes the patch would make. */
  announce(changes: readonly FileUpdateChange[]): void {
    if (this.announced) return;
    this.announced = true;
    this.item = { ...this.item, changes: [...changes] };
    this.events.commit(this.turn.store, () => {
      this.turn.store.items.append(this.turn.threadId, this.item);
      this.events.publish('item/started', { threadId: this.turn.threadId, turnId: this.turn.id, item: this.item, startedAtMs: this.item.createdAtMs }, this.scope());
    });
  }

  /** The final status and what the model is told; `changes` replaces the announced ones (what was really written). */
  finish(status: Exclude<PatchApplyStatus, 'inProgress'>, modelOutput: string, changes?: readonly FileUpdateChange[]): void {
    if (!this.announced) this.announce(changes ?? []);
    const completedAtMs = this.now();
    this.item = { ...this.item, status, modelOutput, completedAtMs, ...(changes ? { changes: [...changes] } : {}) };
    try {
      this.events.commit(this.turn.store, () => {
        this.turn.store.items.replace(this.item);
        this.events.publish('item/completed', { threadId: this.turn.threadId, turnId: this.turn.id, item: this.item, completedAtMs, contentTokenCount: null }, this.scope());
      });
    } catch {
      // The store closed (app quit): the next start ends the item.
    }
  }

  private scope() {
    return { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.item.id, ephemeral: this.turn.ephemeral };
  }
}
