import { StringDecoder } from 'node:string_decoder';
import type { CommandAction, CommandExecutionStatus, PolicyDecidedBy, ThreadItem, ToolCallOutcome } from '../../../shared/protocol/index.js';
import { HeadTailBuffer } from '../../exec/index.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from '../active-turn.js';

type CommandItem = Extract<ThreadItem, { type: 'commandExecution' }>;

/** The item keeps this much of the output (head + tail); the whole of it is in the process log. */
const ITEM_OUTPUT_HEAD = 32 * 1024;
const ITEM_OUTPUT_TAIL = 32 * 1024;
/** Deltas up to this size are kept in the event log itself: a reference would cost as much. */
const INLINE_DELTA_BYTES = 256;

/**
 * The `commandExecution` item of one exec_command call, from announcement to
 * its final status: streams output as `item/commandExecution/outputDelta`,
 * keeps a bounded aggregated copy, and is stored when the call returns to
 * the model (and replaced when a command that outlived its call ends).
 */
export class CommandItemTracker {
  private item: CommandItem;
  private readonly output = new HeadTailBuffer(ITEM_OUTPUT_HEAD, ITEM_OUTPUT_TAIL);
  private readonly decoder = new StringDecoder('utf8');
  private stored = false;
  private completed = false;
  private announced = false;
  private preface = '';
  /**
   * Where in the process log the next delta's first byte is (the bytes the
   * decoder carries start there); null once the log no longer follows the
   * stream (past its cap), after which deltas are stored inline.
   */
  private logCursor: number | null = 0;
  /** Bytes the decoder holds back (an unfinished UTF-8 character) or that were lost from the log. */
  private carriedBytes = 0;

  constructor(
    private readonly turn: ActiveTurn,
    private readonly events: EventLog,
    private readonly now: () => number,
    init: {
      id: string;
      callId: string;
      arguments: unknown;
      command: string;
      cwd: string;
      /** Another machine it runs on; null: this computer. */
      environmentId?: string | null;
      actions: CommandAction[];
      decidedBy: PolicyDecidedBy | null;
    },
  ) {
    const at = now();
    this.item = {
      type: 'commandExecution',
      id: init.id,
      turnId: turn.id,
      createdAtMs: at,
      startedAtMs: at,
      completedAtMs: null,
      command: init.command,
      cwd: init.cwd,
      processId: null,
      source: 'agent',
      status: 'inProgress',
      commandActions: init.actions,
      aggregatedOutput: null,
      exitCode: null,
      durationMs: null,
      pluginId: null,
      scriptPath: null,
      callId: init.callId,
      arguments: init.arguments,
      modelOutput: null,
      logPath: null,
      decidedBy: init.decidedBy,
      outcome: null,
      ...(init.environmentId ? { environmentId: init.environmentId } : {}),
    };
  }

  /** Who settled the command (the person's answer, a hook, the policy): shown to people in place of what the model is told. */
  settle(outcome: ToolCallOutcome): void {
    this.item = { ...this.item, outcome };
  }

  get id(): string {
    return this.item.id;
  }

  get snapshot(): CommandItem {
    return this.item;
  }

  /**
   * Announces the item; until it is stored, a crash records it with `ifLost`'s
   * words. Until it is stored with its final status, readers of the thread get
   * it from `current()` (the stored copy of a running command has no output yet).
   */
  announce(ifLost: { status: CommandExecutionStatus; output: string | null }): void {
    if (this.announced) return;
    this.announced = true;
    this.turn.liveItems.set(this.item.id, () => this.current());
    this.events.publish('item/started', { threadId: this.turn.threadId, turnId: this.turn.id, item: this.item, startedAtMs: this.item.createdAtMs }, this.scope());
    this.saveIfLost(ifLost);
  }

  saveIfLost(ifLost: { status: CommandExecutionStatus; output: string | null; outcome?: ToolCallOutcome }): void {
    if (this.stored) return;
    const outcome = ifLost.outcome ?? this.item.outcome ?? null;
    this.turn.store.pending.save('streaming', this.turn.threadId, { ...this.item, status: ifLost.status, aggregatedOutput: ifLost.output, outcome });
  }

  started(processId: string, logPath: string): void {
    this.item = { ...this.item, processId, logPath };
  }

  /** `logOffset`: where the supervisor wrote these bytes in the process log (null when it did not keep them all). */
  outputChunk(data: Buffer, logOffset: number | null): void {
    this.output.push(data);
    if (this.logCursor !== null && logOffset !== this.logCursor + this.carriedBytes) this.logCursor = null;
    const delta = this.decoder.write(data);
    this.carriedBytes += data.length;
    if (delta.length === 0) return;
    const start = this.logCursor;
    const bytes = Buffer.byteLength(delta);
    this.carriedBytes -= bytes;
    // A replacement character stands for bytes that would not read back the same: inline from here on.
    if (start !== null && delta.includes('\uFFFD')) this.logCursor = null;
    else if (start !== null) this.logCursor = start + bytes;
    const output =
      this.logCursor !== null && start !== null && bytes > INLINE_DELTA_BYTES && this.item.logPath !== null
        ? { file: this.item.logPath, offset: start, length: bytes }
        : undefined;
    this.events.publish('item/commandExecution/outputDelta', { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.item.id, delta }, { ...this.scope(), ...(output ? { output } : {}) });
  }

  /** Words the model reads before this item's own answer (a run again without the sandbox says what happened to the first). */
  prefaceModelOutput(text: string): void {
    this.preface = text;
  }

  /** The call returned to the model: the item takes its place in the thread (still running, or final). */
  returned(modelOutput: string): void {
    this.item = { ...this.item, modelOutput: this.preface + modelOutput };
    const { store } = this.turn;
    this.events.commit(store, () => {
      store.items.append(this.turn.threadId, this.item);
      store.pending.delete(this.item.id);
      if (this.completed) this.publishCompleted();
    });
    this.stored = true;
    if (this.completed) this.turn.liveItems.delete(this.item.id);
  }

  /** The final status; stored now if the call already returned, else when it does. */
  finish(status: Exclude<CommandExecutionStatus, 'inProgress'>, result: { exitCode?: number | null; durationMs?: number | null; message?: string }): void {
    if (this.completed) return;
    const tail = this.decoder.end();
    if (tail) this.events.publish('item/commandExecution/outputDelta', { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.item.id, delta: tail }, this.scope());
    const aggregated = this.output.totalBytes > 0 ? this.output.text() : null;
    const text = result.message ? (aggregated ? `${aggregated}\n${result.message}` : result.message) : aggregated;
    this.item = {
      ...this.item,
      status,
      exitCode: result.exitCode ?? null,
      durationMs: result.durationMs ?? null,
      aggregatedOutput: text,
      completedAtMs: this.now(),
    };
    this.completed = true;
    if (this.stored) {
      this.turn.liveItems.delete(this.item.id);
      try {
        this.events.commit(this.turn.store, () => {
          this.turn.store.items.replace(this.item);
          this.publishCompleted();
        });
      } catch {
        // The store closed (app quit): the next start marks the command as stopped.
      }
    }
  }

  /** The item as a client reading the thread now should see it: the output so far while it runs. */
  private current(): CommandItem {
    if (this.completed || this.output.totalBytes === 0) return this.item;
    return { ...this.item, aggregatedOutput: this.output.text() };
  }

  private publishCompleted(): void {
    this.events.publish('item/completed', { threadId: this.turn.threadId, turnId: this.turn.id, item: this.item, completedAtMs: this.now(), contentTokenCount: null }, this.scope());
  }

  private scope() {
    return { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.item.id, ephemeral: this.turn.ephemeral };
  }
}
