import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { everythingServerScript } from '../mcp-servers.js';
import { repoRoot } from '../paths.js';
import type { RunFolder } from './trace-normalizer.js';
import type { SessionHome } from './session-types.js';

/** The variable holding the mock provider's key (Codex's and Wheelhouse's `env_key`). */
export const MOCK_KEY_VARIABLE = 'WHEELHOUSE_MOCK_API_KEY';
export const MOCK_KEY = 'sk-mock-differential';

/** The folders of one run: the server's home, the project the thread works in (its parent is scratch), and HOME. */
export interface SessionFolders {
  readonly home: string;
  readonly cwd: string;
  /**
   * HOME of the server and its commands: empty, so a login shell's profile
   * (pyenv, nvm) prints nothing and the machine's dotfiles stay out of the trace.
   */
  readonly userHome: string;
}

/** Makes `<root>/home`, `<root>/work/project` (with a README) and `<root>/user`, so a command reaching `..` stays inside the run's root. */
export function makeSessionFolders(root: string): SessionFolders {
  const folders = { home: path.join(root, 'home'), cwd: path.join(root, 'work', 'project'), userHome: path.join(root, 'user') };
  for (const folder of Object.values(folders)) fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folders.cwd, 'README.md'), 'A project for the differential test.\n');
  return folders;
}

/** The environment of a server run on these folders, with the mock provider's key. */
export function serverEnvironment(folders: SessionFolders): NodeJS.ProcessEnv {
  return { ...process.env, HOME: folders.userHome, [MOCK_KEY_VARIABLE]: MOCK_KEY };
}

/** The folders a trace names by placeholder: the run's own, then the repository's and the machine's. */
export function runFolders(root: string, folders: SessionFolders): RunFolder[] {
  const named: RunFolder[] = [
    { label: 'home', path: folders.home },
    { label: 'cwd', path: folders.cwd },
    { label: 'work', path: path.dirname(folders.cwd) },
    { label: 'run', path: root },
    { label: 'repo', path: repoRoot },
    { label: 'node', path: process.execPath },
    { label: 'userHome', path: folders.userHome },
    { label: 'tmp', path: os.tmpdir() },
  ];
  // A server may report a folder by its real path (a temp folder behind a symlink).
  return named.flatMap((folder) => {
    const real = fs.existsSync(folder.path) ? fs.realpathSync(folder.path) : folder.path;
    return real === folder.path ? [folder] : [folder, { label: folder.label, path: real }];
  });
}

const toml = (value: string) => JSON.stringify(value);

/**
 * Writes the home both servers read: config.toml in Codex's format (a custom
 * provider on the Responses wire at the mock, key from an environment
 * variable, no retries) and the exec-policy rules.
 */
export function writeSessionHome(home: string, settings: SessionHome, mockUrl: string): void {
  const lines = [
    'model = "mock-model"',
    'model_provider = "mock"',
    `approval_policy = ${toml(settings.approvalPolicy)}`,
    `sandbox_mode = ${toml(settings.sandboxMode)}`,
    '',
    // Codex: never fetch its model catalogue from the network (its own app-server tests do the same).
    '[features]',
    'remote_models = false',
    '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = ${toml(mockUrl)}`,
    'wire_api = "responses"',
    `env_key = ${toml(MOCK_KEY_VARIABLE)}`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  if (settings.mcpEverything) {
    lines.push('[mcp_servers.everything]', `command = ${toml(process.execPath)}`, `args = [${toml(everythingServerScript)}]`, '');
  }
  fs.writeFileSync(path.join(home, 'config.toml'), lines.join('\n'));
  if (settings.rules) {
    fs.mkdirSync(path.join(home, 'rules'), { recursive: true });
    fs.writeFileSync(path.join(home, 'rules', 'default.rules'), `${settings.rules.join('\n')}\n`);
  }
}
