import path from 'node:path';
import type { ConfigService } from '../config/config-service.js';
import { secretVariableNames } from '../config/secret-variables.js';
import { ProcessSupervisor, type LoginEnvironment } from '../exec/index.js';
import { homePaths } from '../runtime/home.js';

export interface SupervisorChoices {
  /** SIGTERM → SIGKILL grace for cancelled jobs and app quit. */
  readonly killGraceMs?: number;
  /** The environment child processes start from; default: the user's login-shell environment (tests hand in their own). */
  readonly loginEnvironment?: () => Promise<LoginEnvironment>;
}

/**
 * The one supervisor of every child process (agent commands, hooks, jobs, MCP
 * servers, the person's terminals), with the two rules no child may start
 * without: provider keys named in config.toml are removed from its
 * environment, and the home (keys, databases, config) is out of every
 * sandbox's reach. The only place a supervisor is built, so no caller can
 * leave either rule out.
 */
export function superviseProcesses(home: string, config: ConfigService, choices: SupervisorChoices = {}): ProcessSupervisor {
  const paths = homePaths(home);
  const secretNames = new Set<string>();
  return new ProcessSupervisor({
    logDir: path.join(paths.logs, 'exec'),
    runsDir: paths.runs,
    ...(choices.killGraceMs !== undefined ? { killGraceMs: choices.killGraceMs } : {}),
    ...(choices.loginEnvironment ? { loginEnvironment: choices.loginEnvironment } : {}),
    // Names once seen stay secret for the run: a provider renamed or a file broken mid-run still has its key in the environment.
    secretVariables: () => {
      for (const name of secretVariableNames(config.current())) secretNames.add(name);
      return secretNames;
    },
    protectedPaths: [home],
  });
}
