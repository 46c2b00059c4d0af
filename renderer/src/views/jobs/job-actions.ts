import { Pause, Play, RotateCcw, Square, Trash2 } from 'lucide-react';
import type { Job } from '../../../../shared/protocol/index.js';
import { useJobsStore } from '../../services/services.js';
import { useConfirmStore, type ConfirmRequest } from '../../stores/confirm-store.js';
import type { JobAction } from '../../stores/jobs-store.js';

/** Each action's words and icon, for the job page and the dashboard rows alike. */
export const JOB_ACTIONS: ReadonlyArray<{ readonly action: JobAction; readonly label: string; readonly icon: typeof Pause; readonly danger?: boolean }> = [
  { action: 'pause', label: 'Pause', icon: Pause },
  { action: 'resume', label: 'Resume', icon: Play },
  { action: 'retry', label: 'Retry now', icon: RotateCcw },
  { action: 'cancel', label: 'Cancel', icon: Square, danger: true },
  { action: 'delete', label: 'Delete', icon: Trash2, danger: true },
];

/** The question asked before an action that cannot be taken back; null for the others. */
export function confirmationOf(job: Job, action: JobAction): ConfirmRequest | null {
  if (action === 'cancel') {
    const running = job.status === 'running' || job.status === 'paused';
    return {
      title: `Cancel “${job.name}”?`,
      message: running
        ? 'It is stopped now, with every process it started. Its output so far is kept, and Retry runs it again from the start.'
        : 'It will not run. Retry starts it again whenever you like.',
      confirmLabel: 'Cancel job',
      dismissLabel: running ? 'Keep it running' : 'Keep it',
      danger: true,
    };
  }
  if (action === 'delete') {
    return {
      title: `Delete “${job.name}”?`,
      message: 'The job and the output of every attempt are removed. This cannot be undone.',
      confirmLabel: 'Delete job',
      dismissLabel: 'Keep it',
      danger: true,
    };
  }
  return null;
}

/** Runs an action on a job, asking first when it cannot be taken back. */
export async function runJobAction(job: Job, action: JobAction): Promise<void> {
  const question = confirmationOf(job, action);
  if (question && !(await useConfirmStore.getState().ask(question))) return;
  await useJobsStore.getState().act(job.id, action);
}
