import type { FileUpdateChange, PatchApplyStatus, ThreadItem } from '../../../shared/protocol/index.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from '../turns/active-turn.js';

type FileChangeItem = Extract<ThreadItem, { type: 'fileChange' }>;

/**
 * The `fileChange` item of one apply_patch call: announced with the changes
 * the patch would make (so a person sees the diff before deciding), then
 * completed with what was written — or declined/failed, saying why.
 */
export class FileChangeItemTracker {
  private item: FileChangeItem;
  private announced = false;

  constructor(
    private readonly turn: ActiveTurn,
    private readonly events: EventLog,
    private readonly now: () => number,
    init: { id: string; callId: string; arguments: unknown },
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
    };
  }

  get snapshot(): FileChangeItem {
    return this.item;
  }

  /** Announces the item with its changes; until it ends, a crash records it with `ifLost`'s status and words. */
  announce(changes: readonly FileUpdateChange[], ifLost: { status: PatchApplyStatus; output: string }): void {
    if (this.announced) return;
    this.announced = true;
    this.item = { ...this.item, changes: [...changes] };
    this.events.publish('item/started', { threadId: this.turn.threadId, turnId: this.turn.id, item: this.item, startedAtMs: this.item.createdAtMs }, this.scope());
    this.saveIfLost(ifLost);
  }

  saveIfLost(ifLost: { status: PatchApplyStatus; output: string }): void {
    this.turn.store.pending.save('streaming', this.turn.threadId, { ...this.item, status: ifLost.status, modelOutput: ifLost.output });
  }

  /** The final status and what the model is told; `changes` replaces the announced ones (what was really written). */
  finish(status: Exclude<PatchApplyStatus, 'inProgress'>, modelOutput: string, changes?: readonly FileUpdateChange[]): void {
    if (!this.announced) this.announce(changes ?? [], { status, output: modelOutput });
    const completedAtMs = this.now();
    this.item = { ...this.item, status, modelOutput, completedAtMs, ...(changes ? { changes: [...changes] } : {}) };
    const { store } = this.turn;
    store.transaction(() => {
      store.items.append(this.turn.threadId, this.item);
      store.pending.delete(this.item.id);
    });
    this.events.publish('item/completed', { threadId: this.turn.threadId, turnId: this.turn.id, item: this.item, completedAtMs, contentTokenCount: null }, this.scope());
  }

  private scope() {
    return { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.item.id, ephemeral: this.turn.ephemeral };
  }
}
