import { z } from 'zod';
import { REPORT_PROGRESS, UPDATE_GOAL, type GoalManager } from '../goal-manager.js';
import { defineTool, type ToolEntry, type ToolInvocation, type ToolScope } from '../tools/tool-table.js';

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

/** update_goal and report_progress, offered only in threads with a goal. */
export function goalTools(goals: GoalManager): ToolEntry<GoalTurn>[] {
  const withGoal = (scope: ToolScope) => scope.hasGoal;
  return [
    defineTool({
      name: UPDATE_GOAL,
      description:
        'Update the thread goal. Set status "complete" only when the objective has actually been achieved and no required work remains; ' +
        'do not mark it complete because the budget is nearly spent or because you are stopping. Set "blocked" (with a reason) when it ' +
        'cannot be achieved without the person. You cannot pause, resume or change the budget of a goal.',
      args: UpdateGoalArgs,
      offeredTo: withGoal,
      run: (args, { turn }: ToolInvocation<GoalTurn>) => {
        try {
          const goal = goals.markByAgent(turn.threadId, turn.id, args.status);
          const budget = goal.tokenBudget === null ? '' : ` Tokens used: ${goal.tokensUsed} of ${goal.tokenBudget}.`;
          return { success: true, output: `The goal is now ${goal.status}.${budget}` };
        } catch (error) {
          return { success: false, output: error instanceof Error ? error.message : String(error) };
        }
      },
    }),
    defineTool({
      name: REPORT_PROGRESS,
      description: 'Report how far the goal is (0-100 percent), shown to the person as the progress of the work.',
      args: ReportProgressArgs,
      offeredTo: withGoal,
      run: (args) => ({ success: true, output: `Progress noted: ${Math.round(args.percent)}%.` }),
    }),
  ];
}

type GoalTurn = { readonly threadId: string; readonly id: string };
