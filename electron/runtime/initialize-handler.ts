import os from 'node:os';
import { CODEX_PROTOCOL_VERSION, type MethodHandlers } from '../../shared/protocol/index.js';
import type { RequestContext } from './context.js';
import { WHEELHOUSE_VERSION } from './version.js';

/**
 * `initialize`: remembers who the client is and what it opted out of, and
 * says what this server is. It needs no store, so a host answers it while the
 * home's databases are still opening (electron/host/start-runtime.ts); keep
 * this module's imports light for that reason.
 */
export function initializeHandler(home: string): MethodHandlers<RequestContext>['initialize'] {
  return (params, ctx) => {
    ctx.session.clientInfo = params.clientInfo;
    ctx.session.optOut = new Set(params.capabilities?.optOutNotificationMethods ?? []);
    return {
      // Like Codex's: `<client name>/<Codex version>` first, because clients read the first x.y.z as the
      // Codex version they talk to and gate features on it; Wheelhouse's own version is in the details and `serverVersion`.
      userAgent: `${params.clientInfo.name}/${CODEX_PROTOCOL_VERSION} (Wheelhouse ${WHEELHOUSE_VERSION}; ${os.platform()} ${os.release()}; ${os.arch()}) ${params.clientInfo.name}/${params.clientInfo.version}`,
      codexHome: home,
      wheelhouseHome: home,
      codexProtocolVersion: CODEX_PROTOCOL_VERSION,
      platformFamily: process.platform === 'win32' ? 'windows' : 'unix',
      platformOs: process.platform === 'darwin' ? 'macos' : process.platform,
      serverVersion: WHEELHOUSE_VERSION,
    };
  };
}

/** Results are checked against their schemas everywhere but production builds (and always under vitest). */
export function resultsValidatedByDefault(): boolean {
  // `npm run dist` builds with NODE_ENV defined as 'production' (scripts/build.mjs --production).
  return process.env['VITEST'] !== undefined || process.env.NODE_ENV !== 'production';
}
