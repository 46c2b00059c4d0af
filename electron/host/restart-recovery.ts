import { endCommandsOfEarlierRun } from '../runtime/agent-commands/command-recovery.js';
import { endFileChangesOfEarlierRun } from '../runtime/patch/patch-recovery.js';
import { recoverInterruptedTurns } from '../runtime/turns/turn-recovery.js';
import type { RuntimeServices } from './compose-runtime.js';

/**
 * Puts what the last run left in the durable store right before any client
 * can see it: turns that were running end as interrupted, agent commands and
 * file changes as ended, approvals nobody can answer any more are closed,
 * queued turns and jobs are picked up again. The order matters where noted.
 */
export function recoverAfterRestart(services: RuntimeServices, now: () => number): void {
  const { durable, events } = services;
  recoverInterruptedTurns(durable, events, now);
  endCommandsOfEarlierRun(durable);
  // Before the broker ends the old approvals: whether a patch still waited decides how it ends.
  endFileChangesOfEarlierRun(durable);
  services.approvals.endLeftovers(durable);
  services.queue.recoverAfterRestart();
  services.jobs.recover();
  // After the jobs: a claimed slot whose job exists is left to the job engine, not started again.
  services.schedules.recover();
}
