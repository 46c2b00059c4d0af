import type { threadMethods, threadPageMethods } from '../../../shared/protocol/index.js';
import type { EnvironmentRegistry } from '../environments/environment-registry.js';
import type { HookDispatcher } from '../hooks/hook-dispatcher.js';
import { resumeWithSessionHooks, startWithSessionHooks } from '../hooks/session-start-hooks.js';
import type { TurnQueue } from '../queue/turn-queue.js';
import type { ProjectService } from '../projects/project-service.js';
import type { ThreadHistory } from '../thread-history.js';
import type { ThreadPages } from '../thread-pages.js';
import type { ThreadDefaults, ThreadManager } from '../thread-manager.js';
import type { ThreadSandboxSettings } from '../thread-sandbox.js';
import type { ClientTools } from '../tools/client-tools.js';
import type { HandlerTable } from './handler-table.js';
import { originatorOf, sessionSourceOf } from './session-source.js';

export interface ThreadHandlerDeps {
  readonly threads: ThreadManager;
  readonly history: ThreadHistory;
  readonly pages: ThreadPages;
  readonly hooks: HookDispatcher;
  readonly clientTools: ClientTools;
  readonly queue: TurnQueue;
  readonly sandboxSettings: ThreadSandboxSettings;
  /** Checks `environments` (Codex) before anything starts. */
  readonly environments: EnvironmentRegistry;
  /** What thread/start uses when its params leave something out (read per call: Settings may change it). */
  readonly threadDefaults: () => ThreadDefaults;
  /** A project's remembered settings and, on request, a separate copy (worktree) for the new thread. */
  readonly projects: Pick<ProjectService, 'prepareStart'>;
}

/** thread/*: start, read, list, name, archive, resume, fork, rollback, and the paged history. */
export function threadHandlers(deps: ThreadHandlerDeps): HandlerTable<typeof threadMethods & typeof threadPageMethods> {
  const { threads, history, hooks, clientTools, queue, sandboxSettings } = deps;
  return {
    'thread/start': async (params, ctx) => {
      deps.environments.checkThreadSelection(params.environments);
      const dynamicTools = params.dynamicTools ?? [];
      const compiled = await clientTools.check(dynamicTools);
      const prepared = await deps.projects.prepareStart(params);
      const started = await startWithSessionHooks(hooks, prepared, deps.threadDefaults(), (hooked) => threads.start(hooked, sessionSourceOf(ctx.session), originatorOf(ctx.session)));
      clientTools.register(started.thread.id, dynamicTools, compiled, ctx.session.connectionId);
      return sandboxSettings.withEffectiveSettings(started);
    },
    'thread/list': (params) => threads.list(params),
    'thread/read': (params) => threads.read(params),
    'thread/name/set': (params) => threads.setName(params),
    'thread/archive': (params) => threads.archive(params),
    'thread/unarchive': (params) => threads.unarchive(params),
    'thread/readState/update': (params) => threads.updateReadState(params),
    'thread/loaded/list': (params) => threads.loadedList(params),
    'thread/resume': async (params, ctx) => {
      const { record } = threads.require(params.threadId);
      const resumed = await resumeWithSessionHooks(hooks, params, record, (hooked) => history.resume(hooked));
      clientTools.claim(resumed.thread.id, ctx.session.connectionId);
      queue.afterResume(resumed.thread.id);
      return sandboxSettings.withEffectiveSettings(resumed);
    },
    'thread/fork': async (params, ctx) => {
      const forked = history.fork(params, originatorOf(ctx.session));
      await clientTools.inherit(params.threadId, forked.thread.id, ctx.session.connectionId);
      return sandboxSettings.withEffectiveSettings(forked);
    },
    'thread/rollback': (params) => history.rollback(params),
    'thread/turns/list': (params) => deps.pages.turns(params),
    'thread/items/list': (params) => deps.pages.items(params),
  };
}
