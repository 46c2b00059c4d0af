import { z } from 'zod';
import type { ModelToolSpec } from '../../model/types.js';
import { REPORT_PROGRESS, UPDATE_GOAL, type GoalManager } from '../goal-manager.js';
import type { ToolResult } from '../tools/tool-registry.js';

/**
 * The model's side of a thread goal (seed 001), as Codex's goal mode does it:
 * `update_goal` is how the agent says the goal is achieved (or that it cannot
 * go on without the person); pausing and budgets stay with the person.
 * `report_progress` is Wheelhouse's: an agent job shows it as its progress.
 */
export { REPORT_PROGRESS, UPDATE_GOAL };

export const UpdateGoalArgs = z.object({
  status: z.enum(['complete', 'blocked']).describe('"complete" when the objective is achieved; "blocked" when it cannot be without the person'),
  reason: z.string().max(2000).optional().describe('Why the goal is blocked (or a short summary of what was achieved)'),
});

export const ReportProgressArgs = z.object({
  percent: z.number().min(0).max(100).describe('How much of the goal is done, 0 to 100'),
  note: z.string().max(500).optional().describe('What was just done, in a few words'),
});

const specOf = (name: string, description: string, args: z.ZodObject): ModelToolSpec => {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(args);
  return { name, description, parameters };
};

/** Offered only in threads with a goal; built once so every request carries identical JSON (prompt caches). */
export const goalToolSpecs: readonly ModelToolSpec[] = [
  specOf(
    UPDATE_GOAL,
    'Update the thread goal. Set status "complete" only when the objective has actually been achieved and no required work remains; ' +
      'do not mark it complete because the budget is nearly spent or because you are stopping. Set "blocked" (with a reason) when it ' +
      'cannot be achieved without the person. You cannot pause, resume or change the budget of a goal.',
    UpdateGoalArgs,
  ),
  specOf(REPORT_PROGRESS, 'Report how far the goal is (0-100 percent), shown to the person as the progress of the work.', ReportProgressArgs),
];

export const isGoalTool = (name: string): boolean => name === UPDATE_GOAL || name === REPORT_PROGRESS;

/** Runs a goal tool; a bad call becomes a failed result the model reads. */
export function runGoalTool(
  goals: GoalManager,
  target: { readonly threadId: string; readonly turnId: string },
  name: string,
  argumentsJson: string,
): ToolResult {
  let raw: unknown;
  try {
    raw = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
  } catch {
    return { success: false, output: `Arguments for ${name} are not valid JSON` };
  }
  if (name === REPORT_PROGRESS) {
    const parsed = ReportProgressArgs.safeParse(raw);
    if (!parsed.success) return { success: false, output: `Invalid arguments for ${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    return { success: true, output: `Progress noted: ${Math.round(parsed.data.percent)}%.` };
  }
  const parsed = UpdateGoalArgs.safeParse(raw);
  if (!parsed.success) return { success: false, output: `Invalid arguments for ${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  try {
    const goal = goals.markByAgent(target.threadId, target.turnId, parsed.data.status);
    const budget = goal.tokenBudget === null ? '' : ` Tokens used: ${goal.tokensUsed} of ${goal.tokenBudget}.`;
    return { success: true, output: `The goal is now ${goal.status}.${budget}` };
  } catch (error) {
    return { success: false, output: error instanceof Error ? error.message : String(error) };
  }
}
