import type { eventMethods, storageMethods, workspaceMethods } from '../../../shared/protocol/index.js';
import type { EventLog } from '../event-log.js';
import type { StorageRetention } from '../retention/storage-retention.js';
import { listDirectory } from '../workspace-browser.js';
import type { HandlerTable } from './handler-table.js';

/** workspace/*: browsing folders to pick a thread's working directory. */
export function workspaceHandlers(): HandlerTable<typeof workspaceMethods> {
  return {
    'workspace/directory/list': (params) => listDirectory(params),
  };
}

/** events/replay: what a client missed, read back from the durable log by `seq`. */
export function eventHandlers(events: EventLog): HandlerTable<typeof eventMethods> {
  return {
    'events/replay': (params) => {
      const replay = events.replay(params.afterSeq, params.limit ?? 1000, params.threadId ?? undefined);
      return { ...replay, lastSeq: events.lastSeq };
    },
  };
}

/** storage/usage: what the home takes on disk, beside the budgets retention keeps it within. */
export function storageHandlers(retention: StorageRetention): HandlerTable<typeof storageMethods> {
  return {
    'storage/usage': () => retention.report(),
  };
}
