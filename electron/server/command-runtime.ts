import { homePaths } from '../runtime/home.js';
import type { HostRuntimeOptions } from '../host/create-runtime.js';
import { createDefaultSecretStore } from '../secrets/default-secret-store.js';

/** What stopping the server does with running jobs. */
export type JobsOnExit = 'keep' | 'stop';

export type LogError = (message: string, error: unknown) => void;

/** The one line saying what becomes of running jobs, or null when none is running. */
export function jobsOnExitLine(count: number, jobs: JobsOnExit, command: string, home: string): string | null {
  if (count === 0) return null;
  const them = count === 1 ? '1 job' : `${count} jobs`;
  return jobs === 'keep'
    ? `wheelhouse: ${them} keep${count === 1 ? 's' : ''} running in the background; the next \`wheelhouse ${command} --home ${home}\` (or the app on this home) picks ${count === 1 ? 'it' : 'them'} up. --stop-jobs-on-exit stops them instead.`
    : `wheelhouse: stopping ${them} (--stop-jobs-on-exit)…`;
}

/** What both commands build their runtime with. */
export function runtimeOptions(home: string, logError: LogError): HostRuntimeOptions {
  const toolTimeout = Number(process.env['WHEELHOUSE_CLIENT_TOOL_TIMEOUT_MS']);
  return {
    home,
    logError,
    secretStore: createDefaultSecretStore(homePaths(home).apiKeys),
    ...(toolTimeout > 0 ? { clientToolTimeoutMs: toolTimeout } : {}),
  };
}
