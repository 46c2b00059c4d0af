import type { DetachedTask } from './detached-run.js';

/** "4 tasks: 2 running, 1 waiting, 1 failed (task 3)": the counts, and which did not complete. */
export function describeTasks(tasks: readonly DetachedTask[]): string {
  const order: DetachedTask['state'][] = ['running', 'waiting', 'completed', 'failed', 'cancelled', 'lost'];
  const counts = order.map((state) => [state, tasks.filter((task) => task.state === state)] as const).filter(([, list]) => list.length > 0);
  const parts = counts.map(([state, list]) => (state === 'failed' || state === 'lost' || state === 'cancelled' ? `${list.length} ${state} (task${list.length === 1 ? '' : 's'} ${list.map((t) => t.index).join(', ')})` : `${list.length} ${state}`));
  return `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}
