import type { scheduleMethods } from '../../../shared/protocol/index.js';
import type { Scheduler } from '../schedules/scheduler.js';
import type { HandlerTable } from './handler-table.js';

/** schedule/*: job templates on a clock; each run is a job of job/*. */
export function scheduleHandlers(schedules: Scheduler): HandlerTable<typeof scheduleMethods> {
  return {
    'schedule/create': (params) => schedules.create(params),
    'schedule/read': (params) => schedules.read(params.scheduleId),
    'schedule/list': () => schedules.list(),
    'schedule/update': (params) => schedules.update(params),
    'schedule/pause': (params) => schedules.pause(params.scheduleId),
    'schedule/resume': (params) => schedules.resume(params.scheduleId),
    'schedule/delete': (params) => schedules.delete(params.scheduleId),
    'schedule/runNow': (params) => schedules.runNow(params.scheduleId),
  };
}
