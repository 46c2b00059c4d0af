import type { MethodHandlers } from '../../../shared/protocol/index.js';
import type { RequestContext } from '../context.js';
import type { EnvironmentRegistry } from './environment-registry.js';

type EnvironmentMethod = 'environment/add' | 'environment/info' | 'environment/status' | 'environment/list' | 'environment/remove' | 'environment/test';

/** The environment/* methods (Codex's add|info|status, ours list|remove|test), hooked into the runtime's table with one spread. */
export function createEnvironmentHandlers(registry: EnvironmentRegistry): Pick<MethodHandlers<RequestContext>, EnvironmentMethod> {
  return {
    'environment/add': (params) => registry.add(params),
    'environment/info': (params) => registry.info(params.environmentId),
    'environment/status': (params) => registry.status(params.environmentId),
    'environment/list': () => registry.list(),
    'environment/remove': (params) => registry.remove(params.environmentId),
    'environment/test': (params) => registry.test(params.environmentId, params.trustHostKey),
  };
}
