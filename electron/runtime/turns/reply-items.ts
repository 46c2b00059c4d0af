import { ITEM_CODEX_NULLS, type ThreadItem } from '../../../shared/protocol/index.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from '../active-turn.js';

type Reasoning = Extract<ThreadItem, { type: 'reasoning' }>;
type AgentMessage = Extract<ThreadItem, { type: 'agentMessage' }>;

/** How often the text of a streaming reply is saved, at most (a crash loses less than this). */
export const STREAM_CHECKPOINT_MS = 300;

/**
 * The reasoning and message items of one streamed model reply. Items open
 * on their first delta and are persisted when they complete; deltas go out
 * as notifications (batched into the event log), never as SQLite writes.
 * The text of an open message is checkpointed at most every
 * STREAM_CHECKPOINT_MS, so a crash keeps what was streamed (marked incomplete).
 */
export class ReplyItems {
  private reasoning: Reasoning | null = null;
  private message: AgentMessage | null = null;
  /** The open reasoning item's summary parts and raw text parts, as Codex's `summary` and `content`. */
  private reasoningSummary: string[] = [];
  private reasoningContent: string[] = [];
  private messageText = '';
  private checkpointTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly turn: ActiveTurn,
    private readonly events: EventLog,
    private readonly newId: () => string,
    private readonly now: () => number,
  ) {}

  /** Text of the reply so far (kept when a stream is cut). */
  get text(): string {
    return this.messageText;
  }

  /** Raw reasoning text (Responses `reasoning_text`, Chat `reasoning_content`): `content[contentIndex]`, streamed as `item/reasoning/textDelta`. */
  reasoningDelta(delta: string, contentIndex: number): void {
    if (delta.length === 0) return;
    const reasoning = this.openReasoning();
    appendAt(this.reasoningContent, contentIndex, delta);
    this.events.publish(
      'item/reasoning/textDelta',
      { threadId: this.turn.threadId, turnId: this.turn.id, itemId: reasoning.id, delta, contentIndex },
      this.scope(reasoning.id),
    );
  }

  /** A reasoning summary begins part `summaryIndex` (Codex announces every part, the first included). */
  reasoningSummaryPart(summaryIndex: number): void {
    const reasoning = this.openReasoning();
    appendAt(this.reasoningSummary, summaryIndex, '');
    this.events.publish(
      'item/reasoning/summaryPartAdded',
      { threadId: this.turn.threadId, turnId: this.turn.id, itemId: reasoning.id, summaryIndex },
      this.scope(reasoning.id),
    );
  }

  /** Text of reasoning summary part `summaryIndex`: `summary[summaryIndex]`, streamed as `item/reasoning/summaryTextDelta`. */
  reasoningSummaryDelta(delta: string, summaryIndex: number): void {
    if (delta.length === 0) return;
    const reasoning = this.openReasoning();
    appendAt(this.reasoningSummary, summaryIndex, delta);
    this.events.publish(
      'item/reasoning/summaryTextDelta',
      { threadId: this.turn.threadId, turnId: this.turn.id, itemId: reasoning.id, delta, summaryIndex },
      this.scope(reasoning.id),
    );
  }

  /** The open reasoning item; a new one (announced, and ending an open message) when none is. */
  private openReasoning(): Reasoning {
    if (this.reasoning) return this.reasoning;
    if (this.message) this.completeMessage();
    const at = this.now();
    const reasoning: Reasoning = {
      type: 'reasoning',
      id: this.newId(),
      turnId: this.turn.id,
      createdAtMs: at,
      startedAtMs: at,
      completedAtMs: null,
      summary: [],
      content: [],
    };
    this.reasoning = reasoning;
    this.turn.liveItems.set(reasoning.id, () => ({ ...reasoning, summary: [...this.reasoningSummary], content: [...this.reasoningContent] }));
    this.started(reasoning);
    return reasoning;
  }

  textDelta(delta: string): void {
    if (delta.length === 0) return;
    if (this.reasoning) this.completeReasoning();
    if (!this.message) {
      const at = this.now();
      this.message = {
        type: 'agentMessage',
        id: this.newId(),
        turnId: this.turn.id,
        createdAtMs: at,
        startedAtMs: at,
        completedAtMs: null,
        text: '',
        ...ITEM_CODEX_NULLS.agentMessage,
      };
      const message = this.message;
      this.turn.liveItems.set(message.id, () => ({ ...message, text: this.messageText }));
      this.started(this.message);
    }
    this.messageText += delta;
    this.checkpointTimer ??= setTimeout(() => this.checkpointMessage(), STREAM_CHECKPOINT_MS);
    this.events.publish(
      'item/agentMessage/delta',
      { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.message.id, delta },
      this.scope(this.message.id),
    );
  }

  /**
   * Completes whatever is open. `cutOff` (interrupt, failure): the partial
   * text is kept and the message marked incomplete.
   */
  completeAll(cutOff = false): void {
    this.completeReasoning();
    this.completeMessage(cutOff);
  }

  /** Saves the text streamed so far; a restart turns it into an incomplete message. */
  private checkpointMessage(): void {
    this.checkpointTimer = undefined;
    if (!this.message) return;
    try {
      this.turn.store.pending.save('streaming', this.turn.threadId, { ...this.message, text: this.messageText, incomplete: true });
    } catch {
      // Only when the store was closed under a running turn (hard shutdown): nothing left to save to.
    }
  }

  private completeReasoning(): void {
    if (!this.reasoning) return;
    const item: Reasoning = { ...this.reasoning, summary: this.reasoningSummary, content: this.reasoningContent, completedAtMs: this.now() };
    this.reasoning = null;
    this.reasoningSummary = [];
    this.reasoningContent = [];
    this.completed(item);
  }

  private completeMessage(cutOff = false): void {
    if (!this.message) return;
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    const item: AgentMessage = {
      ...this.message,
      text: this.messageText,
      completedAtMs: this.now(),
      ...(cutOff ? { incomplete: true } : {}),
    };
    this.message = null;
    this.messageText = '';
    this.completed(item);
  }

  private started(item: ThreadItem): void {
    this.events.publish(
      'item/started',
      { threadId: this.turn.threadId, turnId: this.turn.id, item, startedAtMs: this.now() },
      this.scope(item.id),
    );
  }

  private completed(item: ThreadItem): void {
    const { store } = this.turn;
    this.events.commit(store, () => {
      store.items.append(this.turn.threadId, item);
      store.pending.delete(item.id);
      this.events.publish(
        'item/completed',
        { threadId: this.turn.threadId, turnId: this.turn.id, item, completedAtMs: this.now(), contentTokenCount: null },
        this.scope(item.id),
      );
    });
    this.turn.liveItems.delete(item.id);
  }

  private scope(itemId: string) {
    return { threadId: this.turn.threadId, turnId: this.turn.id, itemId, ephemeral: this.turn.ephemeral };
  }
}

/** Appends `text` to `parts[index]`, first adding empty parts up to it. */
function appendAt(parts: string[], index: number, text: string): void {
  while (parts.length <= index) parts.push('');
  parts[index] += text;
}
