import type { MethodHandlers } from '../../../shared/protocol/index.js';
import type { RequestContext } from '../context.js';
import type { Scheduler } from './scheduler.js';

type ScheduleMethod = Extract<keyof MethodHandlers<RequestContext>, `schedule/${string}`>;

/** The schedule/* methods (Wheelhouse's own namespace), over the scheduler. */
export function createScheduleHandlers(scheduler: Scheduler): Pick<MethodHandlers<RequestContext>, ScheduleMethod> {
  return {
    'schedule/create': (params) => scheduler.create(params),
    'schedule/read': (params) => scheduler.read(params.scheduleId),
    'schedule/list': () => scheduler.list(),
    'schedule/update': (params) => scheduler.update(params),
    'schedule/pause': (params) => scheduler.pause(params.scheduleId),
    'schedule/resume': (params) => scheduler.resume(params.scheduleId),
    'schedule/delete': (params) => scheduler.delete(params.scheduleId),
    'schedule/runNow': (params) => scheduler.runNow(params.scheduleId),
  };
}
