import type { environmentMethods } from '../../../shared/protocol/index.js';
import type { EnvironmentRegistry } from '../environments/environment-registry.js';
import type { HandlerTable } from './handler-table.js';

/** environment/*: Codex's add|info|status, ours list|remove|test — the machines of Settings → Machines. */
export function environmentHandlers(registry: EnvironmentRegistry): HandlerTable<typeof environmentMethods> {
  return {
    'environment/add': (params) => registry.add(params),
    'environment/info': (params) => registry.info(params.environmentId),
    'environment/status': (params) => registry.status(params.environmentId),
    'environment/list': () => registry.list(),
    'environment/remove': (params) => registry.remove(params.environmentId),
    'environment/test': (params) => registry.test(params.environmentId, params.trustHostKey),
  };
}
