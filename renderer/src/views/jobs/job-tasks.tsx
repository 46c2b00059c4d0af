import type { JobRunTask } from '../../../../shared/protocol/index.js';

const STATES: Readonly<Record<JobRunTask['state'], string>> = {
  waiting: 'waiting for the cluster',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  lost: 'lost',
};

/** The line prefix each task of a Slurm job array gives its output in the run's log. */
export const taskPrefix = (index: number) => `[task ${index}] `;

/**
 * A Slurm job array's sub-runs in one attempt: each task's state and exit,
 * and a button that finds its lines in the output (a task's lines begin
 * `[task <index>] `). A retry's attempt lists only the tasks it re-submitted.
 */
export function JobTasks({ tasks, onShow, shown }: { readonly tasks: readonly JobRunTask[]; readonly onShow: (index: number | null) => void; readonly shown: number | null }) {
  return (
    <section className="job-tasks" aria-label="Sub-runs" data-testid="job-tasks">
      <h3 className="job-tasks-title">Sub-runs</h3>
      <ol className="job-tasks-list">
        {tasks.map((task) => (
          <li key={task.index} className="job-task" data-testid="job-task" data-task={task.index} data-state={task.state}>
            <button
              type="button"
              className="job-task-button"
              aria-pressed={shown === task.index}
              title={shown === task.index ? 'Stop finding this task’s lines' : `Find the lines of task ${task.index} in the output`}
              onClick={() => onShow(shown === task.index ? null : task.index)}
            >
              <span className="job-task-index">Task {task.index}</span>
              <span className="job-status" data-status={task.state === 'waiting' ? 'queued' : task.state === 'lost' ? 'failed' : task.state}>
                {STATES[task.state]}
              </span>
              {task.exitCode !== null ? <span className="job-task-exit">exit {task.exitCode}</span> : null}
              {task.detail && task.state !== 'waiting' ? <span className="job-task-detail">{task.detail}</span> : null}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
