import type { ThreadItem, TokenUsageBreakdown } from '../../shared/protocol/index.js';
import type { StateStore } from '../store/state-store.js';

/** In-memory state of the one running turn of a thread. */
export interface ActiveTurn {
  readonly id: string;
  readonly threadId: string;
  readonly store: StateStore;
  readonly ephemeral: boolean;
  readonly cwd: string;
  readonly ordinal: number;
  readonly startedAtMs: number;
  readonly controller: AbortController;
  /**
   * Steer input not yet in the history (already saved as pending). It joins
   * the history when the loop next builds a request (after the current reply
   * and its tool results), so a steer never splits a reply from its tool calls.
   */
  pendingInput: ThreadItem[];
  /**
   * Items announced to clients but not yet in `thread_items` (a command
   * waiting for approval or running, an MCP call, a reply still streaming),
   * in announcement order, each giving its current state. thread/read and
   * thread/resume add them to the running turn, so a window that reloads
   * mid-turn sees them where they are; each leaves the map when it is stored.
   */
  readonly liveItems: Map<string, () => ThreadItem>;
  model: string | null;
  usage: TokenUsageBreakdown;
  /** Resolves when the turn has ended and been persisted. */
  done: Promise<void>;
}

export const ZERO_USAGE: TokenUsageBreakdown = {
  totalTokens: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
};

export function addUsage(a: TokenUsageBreakdown, b: TokenUsageBreakdown): TokenUsageBreakdown {
  return {
    totalTokens: a.totalTokens + b.totalTokens,
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteInputTokens: a.cacheWriteInputTokens + b.cacheWriteInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
  };
}
