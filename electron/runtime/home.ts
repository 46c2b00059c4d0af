import os from 'node:os';
import path from 'node:path';

/** The Wheelhouse home: `WHEELHOUSE_HOME`, else `~/.wheelhouse` (the app passes its userData folder). */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit ?? env['WHEELHOUSE_HOME'] ?? path.join(os.homedir(), '.wheelhouse');
  return path.resolve(chosen);
}

/** Files inside the home. */
export function homePaths(home: string) {
  return {
    home,
    stateDb: path.join(home, 'state.sqlite'),
    config: path.join(home, 'config.toml'),
    /** API keys where there is no keychain (mode 0600); see electron/secrets/private-file-secret-store.ts. */
    apiKeys: path.join(home, 'api-keys.json'),
    logs: path.join(home, 'logs'),
    /** Each detached job run's folder: its wrapper scripts, output log and status files. */
    runs: path.join(home, 'runs'),
    /** Plain folders' checkpoint stores and scratch indexes (electron/git/checkpoints.ts). */
    checkpoints: path.join(home, 'checkpoints'),
    /** Agents' separate copies of repositories (git worktrees). */
    worktrees: path.join(home, 'worktrees'),
  } as const;
}
