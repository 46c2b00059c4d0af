import type { execPolicyMethods, hookMethods, threadSandboxMethods } from '../../../shared/protocol/index.js';
import type { EnvironmentRegistry } from '../environments/environment-registry.js';
import type { HookDispatcher } from '../hooks/hook-dispatcher.js';
import type { PolicyService } from '../policy/rules-service.js';
import type { ThreadDefaults, ThreadManager } from '../thread-manager.js';
import type { ThreadSandboxSettings } from '../thread-sandbox.js';
import type { HandlerTable } from './handler-table.js';

/** execPolicy/*: the rules files, their editor, and "what would happen to this command?". */
export function execPolicyHandlers(policy: PolicyService, sandboxSettings: ThreadSandboxSettings): HandlerTable<typeof execPolicyMethods> {
  return {
    'execPolicy/rules/list': () => policy.list(),
    'execPolicy/rules/write': (params) => policy.write(params.change),
    'execPolicy/check': async (params) => policy.check(params.command, await sandboxSettings.commandSettings(params.threadId ?? null)),
  };
}

/** thread/settings/update, thread/sandbox/read: each thread's sandbox mode, approval policy and machine. */
export function threadSandboxHandlers(sandboxSettings: ThreadSandboxSettings, environments: EnvironmentRegistry, threads: ThreadManager): HandlerTable<typeof threadSandboxMethods> {
  return {
    'thread/settings/update': async (params) => {
      const { environments: selection, ...rest } = params;
      // Every part is checked before any changes: a refused machine leaves the sandbox as it was, and the other way round.
      const choice = environments.checkThreadSelection(selection);
      if (choice) threads.requireUnarchived(params.threadId, 'thread/settings/update');
      await sandboxSettings.update(rest);
      if (choice) threads.setEnvironment(params.threadId, choice, 'thread/settings/update');
      return {};
    },
    'thread/sandbox/read': (params) => sandboxSettings.read(params.threadId),
  };
}

/** hooks/list: the hooks config.toml sets for a thread's folder (or the given folders, or the default one). */
export function hookHandlers(hooks: HookDispatcher, threads: ThreadManager, threadDefaults: () => ThreadDefaults): HandlerTable<typeof hookMethods> {
  return {
    'hooks/list': (params) => {
      const cwds = params.threadId ? [threads.require(params.threadId).record.cwd] : params.cwds?.length ? params.cwds : [threadDefaults().cwd];
      return { data: hooks.list(cwds) };
    },
  };
}
