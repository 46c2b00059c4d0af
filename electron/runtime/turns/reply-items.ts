import { ITEM_CODEX_NULLS, type ThreadItem } from '../../../shared/protocol/index.js';
import type { EventLog } from '../event-log.js';
import type { ActiveTurn } from './active-turn.js';

type Reasoning = Extract<ThreadItem, { type: 'reasoning' }>;
type AgentMessage = Extract<ThreadItem, { type: 'agentMessage' }>;

/**
 * The reasoning and message items of one streamed model reply. Items open
 * on their first delta and are persisted when they complete; deltas go out
 * as notifications (batched into the event log), never as SQLite writes.
 */
export class ReplyItems {
  private reasoning: Reasoning | null = null;
  private message: AgentMessage | null = null;
  private reasoningText = '';
  private messageText = '';

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

  reasoningDelta(delta: string): void {
    if (delta.length === 0) return;
    if (this.message) this.completeMessage();
    if (!this.reasoning) {
      const at = this.now();
      this.reasoning = {
        type: 'reasoning',
        id: this.newId(),
        turnId: this.turn.id,
        createdAtMs: at,
        startedAtMs: at,
        completedAtMs: null,
        summary: [],
        content: [],
      };
      this.started(this.reasoning);
    }
    this.reasoningText += delta;
    this.events.publish(
      'item/reasoning/textDelta',
      { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.reasoning.id, delta, contentIndex: 0 },
      this.scope(this.reasoning.id),
    );
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
      this.started(this.message);
    }
    this.messageText += delta;
    this.events.publish(
      'item/agentMessage/delta',
      { threadId: this.turn.threadId, turnId: this.turn.id, itemId: this.message.id, delta },
      this.scope(this.message.id),
    );
  }

  /** Completes whatever is open (also on interrupt or failure: partial text is kept). */
  completeAll(): void {
    this.completeReasoning();
    this.completeMessage();
  }

  private completeReasoning(): void {
    if (!this.reasoning) return;
    const item: Reasoning = { ...this.reasoning, content: [this.reasoningText], completedAtMs: this.now() };
    this.reasoning = null;
    this.reasoningText = '';
    this.completed(item);
  }

  private completeMessage(): void {
    if (!this.message) return;
    const item: AgentMessage = { ...this.message, text: this.messageText, completedAtMs: this.now() };
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
    this.turn.store.items.append(this.turn.threadId, item);
    this.events.publish(
      'item/completed',
      { threadId: this.turn.threadId, turnId: this.turn.id, item, completedAtMs: this.now(), contentTokenCount: null },
      this.scope(item.id),
    );
  }

  private scope(itemId: string) {
    return { threadId: this.turn.threadId, turnId: this.turn.id, itemId, ephemeral: this.turn.ephemeral };
  }
}
