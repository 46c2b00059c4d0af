/**
 * What Wheelhouse tells the agent of an agent job, turn by turn. Shared so the
 * conversation can tell these instructions apart from what the person typed
 * and show them as Wheelhouse's, folded, instead of as the person's message.
 */

const FIRST_TURN_HEAD = 'Work toward this goal until it is achieved:\n\n';

export const FIRST_TURN_PROMPT = (objective: string) =>
  `${FIRST_TURN_HEAD}${objective}\n\nYou are running unattended as a Wheelhouse agent job. ` +
  'When the goal is fully achieved, call update_goal with status "complete". If you cannot go on without the person, ' +
  'call update_goal with status "blocked" and say why. Use report_progress to say how far along you are.';

export const CONTINUE_PROMPT =
  'Continue working toward the goal. When it is fully achieved, call update_goal with status "complete"; ' +
  'if you cannot go on without the person, call update_goal with status "blocked" with the reason.';

/** Which instruction `text` is, or null when it is anything else (the person's own words). */
export function agentJobInstruction(text: string): 'start' | 'continue' | null {
  if (text === CONTINUE_PROMPT) return 'continue';
  if (!text.startsWith(FIRST_TURN_HEAD)) return null;
  const objective = text.slice(FIRST_TURN_HEAD.length, text.lastIndexOf('\n\nYou are running unattended'));
  return text === FIRST_TURN_PROMPT(objective) ? 'start' : null;
}
