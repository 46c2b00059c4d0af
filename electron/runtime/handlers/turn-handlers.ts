import type { goalMethods, queueMethods, turnMethods } from '../../../shared/protocol/index.js';
import type { EnvironmentRegistry } from '../environments/environment-registry.js';
import type { GoalManager } from '../goal-manager.js';
import type { TurnQueue } from '../queue/turn-queue.js';
import type { TurnEngine } from '../turns/turn-engine.js';
import type { HandlerTable } from './handler-table.js';

/** turn/*: start, steer, interrupt. */
export function turnHandlers(turns: TurnEngine, environments: EnvironmentRegistry): HandlerTable<typeof turnMethods> {
  return {
    'turn/start': (params) => {
      environments.checkThreadSelection(params.environments);
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
