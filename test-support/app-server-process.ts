import readline from 'node:readline';
import { spawnTracked, type ChildExit, type TrackedChild } from './child-process.js';
import { cliBin, repoRoot } from './paths.js';
import { ProtocolPeer } from './protocol-peer.js';

/** `wheelhouse app-server` running as a real child process, driven over its stdin/stdout. */
export interface AppServerProcess {
  readonly peer: ProtocolPeer;
  readonly process: TrackedChild;
  /** Closes stdin, as a client does when it is done. */
  endInput(): void;
  readonly exited: Promise<ChildExit>;
}

/** How to start it beyond the defaults. */
export interface AppServerOptions {
  /** Options for node itself, before the script (e.g. `--import` a loader hook). */
  readonly nodeArgs?: readonly string[];
  /** Variables added to the environment (API keys). */
  readonly env?: Readonly<Record<string, string>>;
  /** Arguments after `app-server --home <home>`. */
  readonly args?: readonly string[];
  /** Leave running jobs running when it stops (its default); off here, so a test's jobs end with its server. */
  readonly keepJobsOnExit?: boolean;
}

/** Starts `node bin/wheelhouse.mjs app-server --home <home> [args]`. */
export function startAppServer(home: string, options: AppServerOptions = {}): AppServerProcess {
  const tracked = spawnTracked(
    process.execPath,
    [...(options.nodeArgs ?? []), cliBin, 'app-server', '--home', home, ...(options.keepJobsOnExit ? [] : ['--stop-jobs-on-exit']), ...(options.args ?? [])],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Keys a test enters go to the home's private file, never the keychain of the machine running the tests.
      env: { ...process.env, WHEELHOUSE_KEY_STORAGE: 'file', ...options.env, WHEELHOUSE_HOME: home },
    },
  );
  const { stdin, stdout } = tracked.child;
  if (!stdin || !stdout) throw new Error('app-server spawned without pipes');
  stdin.on('error', () => undefined); // writes after the child exits are a test's concern, not a crash
  const peer = new ProtocolPeer({ send: (text) => void stdin.write(`${text}\n`) });
  const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
  lines.on('line', (line) => peer.inbox.push(line));
  lines.on('close', () => peer.inbox.close('app-server stdout ended'));
  return {
    peer,
    process: tracked,
    endInput: () => stdin.end(),
    exited: tracked.exited,
  };
}
