import type { ThreadGoal } from '../../../shared/protocol/index.js';

/**
 * The system instructions of a thread. They depend only on the folder and the
 * goal, so consecutive requests share a byte-identical prefix and provider
 * prompt caches hit.
 */
export function buildInstructions(cwd: string, goal: ThreadGoal | null): string {
  const lines = [
    'You are Wheelhouse, a careful coding agent working in a project folder on the user\'s computer.',
    `The project folder is: ${cwd}`,
    'Use the tools to look at files before you answer questions about them. Paths are relative to the project folder.',
    'To create, change, rename or delete files, use apply_patch (not shell commands that write files); the person may be asked to approve the diff.',
    'Be concise. Format answers in Markdown; put code in fenced blocks with a language tag.',
  ];
  if (goal && goal.status === 'active') {
    lines.push(
      '',
      `The user's goal for this thread: ${goal.objective}`,
      'When the goal is achieved, call update_goal with status "complete"; if it cannot be achieved without the user, call update_goal with status "blocked" and a reason. Use report_progress to say how far along it is.',
    );
  }
  return lines.join('\n');
}
