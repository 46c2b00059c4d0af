import type { goalMethods, queueMethods, reviewMethods, turnMethods } from '../../../shared/protocol/index.js';
import type { ReviewService } from '../review/review-service.js';
import type { EnvironmentRegistry } from '../environments/environment-registry.js';
import type { GoalManager } from '../goal-manager.js';
import type { TurnQueue } from '../queue/turn-queue.js';
import type { ThreadManager } from '../thread-manager.js';
import type { TurnEngine } from '../turns/turn-engine.js';
import type { HandlerTable } from './handler-table.js';

/** turn/*: start, steer, interrupt. */
export function turnHandlers(turns: TurnEngine, environments: EnvironmentRegistry, threads: ThreadManager): HandlerTable<typeof turnMethods> {
  return {
    'turn/start': (params) => {
      // Codex: the environments of this turn and the ones after it.
      const choice = environments.checkThreadSelection(params.environments);
      if (choice) threads.setEnvironment(params.threadId, choice, 'turn/start');
      return turns.start(params);
    },
    'turn/steer': (params) => turns.steer(params),
    'turn/interrupt': (params) => turns.interrupt(params),
  };
}

/** thread/queue/*: turns waiting for the running one to end. */
export function queueHandlers(queue: TurnQueue): HandlerTable<typeof queueMethods> {
  return {
    'thread/queue/add': (params) => queue.add(params),
    'thread/queue/list': (params) => queue.list(params),
    'thread/queue/counts': () => queue.counts(),
    'thread/queue/delete': (params) => queue.delete(params),
    'thread/queue/reorder': (params) => queue.reorder(params),
    'thread/queue/update': (params) => queue.update(params),
    'thread/queue/start': (params) => queue.start(params),
  };
}

/** thread/goal/*: a thread's objective that turns work towards. */
export function goalHandlers(goals: GoalManager): HandlerTable<typeof goalMethods> {
  return {
    'thread/goal/set': (params) => goals.set(params),
    'thread/goal/get': (params) => ({ goal: goals.get(params.threadId) }),
    'thread/goal/clear': (params) => goals.clear(params.threadId),
  };
}

/** review/start: Codex's review turn. */
export function reviewHandlers(review: ReviewService): HandlerTable<typeof reviewMethods> {
  return { 'review/start': (params) => review.start(params) };
}
