import type { ActiveTurn } from '../active-turn.js';
import type { HookContext } from './hook-dispatcher.js';

/** The hook context of a running turn. */
export function hookContextOf(turn: ActiveTurn): HookContext {
  return { threadId: turn.threadId, turnId: turn.id, cwd: turn.cwd, ephemeral: turn.ephemeral, signal: turn.controller.signal };
}
