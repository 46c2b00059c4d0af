import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { homePaths, resolveHome } from '../runtime/home.js';
import type { HostRuntimeOptions } from '../host/create-runtime.js';
import { startRuntime, type StartingRuntime } from '../host/start-runtime.js';
import type { Runtime } from '../host/runtime.js';
import { createDefaultSecretStore } from '../secrets/default-secret-store.js';
import { WHEELHOUSE_VERSION } from '../runtime/version.js';
import { RpcHost } from './rpc-host.js';
import { loadServeToken } from './serve-token.js';
import { DEFAULT_MAX_UNSENT_BYTES, serveStdio } from './stdio-carrier.js';

const MIB = 1024 * 1024;

const USAGE = `wheelhouse ${WHEELHOUSE_VERSION}

Usage:
  wheelhouse app-server [--home DIR] [--max-unsent-mib N] [--stop-jobs-on-exit]
                                                   JSON-RPC over stdin/stdout (one JSON message per line);
                                                   a client that leaves N MiB (default 64) unread is dropped
  wheelhouse serve [--port N] [--home DIR] [--rotate-token] [--stop-jobs-on-exit]
                                                   browser UI + WebSocket + HTTP API (/v1) on 127.0.0.1,
                                                   prints the URL; the token is kept in the home and reused
                                                   across restarts, --rotate-token makes a new one
                                                   (old links stop working)
  wheelhouse --version | --help

Data lives in --home, else $WHEELHOUSE_HOME, else ~/.wheelhouse.
Jobs keep running when the server stops (Ctrl+C, SIGTERM, end of input) and the next start on the
same home picks them up; --stop-jobs-on-exit stops them instead.
$WHEELHOUSE_CLIENT_TOOL_TIMEOUT_MS: how long a client-side tool call waits for its client (default 120000).`;

/** Entry point of the `wheelhouse` command; returns the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${WHEELHOUSE_VERSION}\n`);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: {
        home: { type: 'string' },
        port: { type: 'string' },
        'max-unsent-mib': { type: 'string' },
        'rotate-token': { type: 'boolean' },
        'stop-jobs-on-exit': { type: 'boolean' },
      },
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`wheelhouse: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const home = resolveHome(parsed.values.home);
  const jobs: JobsOnExit = parsed.values['stop-jobs-on-exit'] === true ? 'stop' : 'keep';
  const logError = (message: string, error: unknown) =>
    process.stderr.write(`wheelhouse: ${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);

  switch (command) {
    case 'app-server': {
      const mib = parsed.values['max-unsent-mib'] === undefined ? DEFAULT_MAX_UNSENT_BYTES / MIB : Number(parsed.values['max-unsent-mib']);
      if (!Number.isFinite(mib) || mib < 1 || mib > 4096) {
        process.stderr.write(`wheelhouse: --max-unsent-mib must be a number from 1 to 4096\n`);
        return 2;
      }
      return runAppServer(home, Math.round(mib * MIB), jobs, logError);
    }
    case 'serve': {
      const port = parsed.values.port === undefined ? 0 : Number(parsed.values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`wheelhouse: --port must be a number from 0 to 65535\n`);
        return 2;
      }
      return runServe(home, port, parsed.values['rotate-token'] === true, jobs, logError);
    }
    default:
      process.stderr.write(`wheelhouse: unknown command "${command}"\n${USAGE}\n`);
      return 2;
  }
}

/** What stopping the server does with running jobs. */
type JobsOnExit = 'keep' | 'stop';

/** The one line saying what becomes of running jobs, or null when none is running. */
function jobsOnExitLine(count: number, jobs: JobsOnExit, command: string, home: string): string | null {
  if (count === 0) return null;
  const them = count === 1 ? '1 job' : `${count} jobs`;
  return jobs === 'keep'
    ? `wheelhouse: ${them} keep${count === 1 ? 's' : ''} running in the background; the next \`wheelhouse ${command} --home ${home}\` (or the app on this home) picks ${count === 1 ? 'it' : 'them'} up. --stop-jobs-on-exit stops them instead.`
    : `wheelhouse: stopping ${them} (--stop-jobs-on-exit)…`;
}

/** What both commands build their runtime with. */
function runtimeOptions(home: string, logError: (m: string, e: unknown) => void): HostRuntimeOptions {
  const toolTimeout = Number(process.env['WHEELHOUSE_CLIENT_TOOL_TIMEOUT_MS']);
  return {
    home,
    logError,
    secretStore: createDefaultSecretStore(homePaths(home).apiKeys),
    ...(toolTimeout > 0 ? { clientToolTimeoutMs: toolTimeout } : {}),
  };
}

/** Opens the runtime, or says in one line why it cannot (e.g. the home is in use). */
async function openRuntime(home: string, logError: (m: string, e: unknown) => void): Promise<Runtime | undefined> {
  // Loaded here, not at start-up: `app-server` answers its first request before it needs these modules.
  const { createRuntime } = await import('../host/create-runtime.js');
  try {
    return createRuntime(runtimeOptions(home, logError));
  } catch (error) {
    process.stderr.write(`wheelhouse: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

async function runAppServer(home: string, maxUnsentBytes: number, jobs: JobsOnExit, logError: (m: string, e: unknown) => void): Promise<number> {
  const stopSignal = listenForStop();
  let starting: StartingRuntime;
  try {
    // Takes the home lock now; the stores open once the first input has been read (and `initialize` in it answered).
    const firstInput = () =>
      new Promise<void>((resolve) => {
        process.stdin.once('data', () => resolve());
        process.stdin.once('end', () => resolve());
        process.stdin.once('close', () => resolve());
      });
    starting = startRuntime(runtimeOptions(home, logError), firstInput);
  } catch (error) {
    process.stderr.write(`wheelhouse: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let openFailed = false;
  starting.ready.catch((error: unknown) => {
    // Requests already read get the reason as their error; then the server stops reading and exits 1.
    openFailed = true;
    process.stderr.write(`wheelhouse: ${error instanceof Error ? error.message : String(error)}\n`);
    process.stdin.destroy();
  });
  const host = new RpcHost(starting);
  // Running turns end first, so the client still hears their turn/completed.
  // A runtime still opening has no turns yet; closing stdin lets it finish opening and shut down.
  void stopSignal.then(() => (starting.current()?.turns.stopAll() ?? Promise.resolve()).finally(() => process.stdin.destroy()));
  const end = await serveStdio(host, process.stdin, process.stdout, { maxUnsentBytes });
  if (end.dropped) process.stderr.write(`wheelhouse: ${end.reason}\n`);
  host.close();
  // stdout is the protocol: the line about jobs goes to stderr.
  const line = jobsOnExitLine(starting.runningJobCount(), jobs, 'app-server', home);
  if (line) process.stderr.write(`${line}\n`);
  await starting.shutdown({ jobs });
  if (end.dropped) {
    // stdout still holds what the client never read; waiting for it would hang forever.
    process.exit(1);
  }
  return openFailed ? 1 : 0;
}

/**
 * Resolves on the first SIGINT or SIGTERM. Listened for before the home is locked: a signal
 * that arrives while no listener exists kills the process outright, leaving its lock behind.
 */
function listenForStop(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Running turns get this long to end cleanly on Ctrl+C before the server goes anyway. */
const TURN_STOP_GRACE_MS = 1_000;
/** With --stop-jobs-on-exit, running jobs get this long to end (SIGTERM, then SIGKILL after the grace). */
const JOB_STOP_GRACE_MS = 15_000;

async function runServe(
  home: string,
  port: number,
  rotateToken: boolean,
  jobs: JobsOnExit,
  logError: (m: string, e: unknown) => void,
): Promise<number> {
  const stopSignal = listenForStop();
  const runtime = await openRuntime(home, logError);
  if (!runtime) return 1;
  const host = new RpcHost(runtime);
  const staticRoot = rendererRoot();
  // Only `serve` needs HTTP and WebSocket (ws); `app-server` never loads them.
  const { startWebServer } = await import('./web-server.js');
  let server;
  try {
    const token = loadServeToken(home, { rotate: rotateToken });
    server = await startWebServer(host, { port, token, ...(staticRoot ? { staticRoot } : {}) });
  } catch (error) {
    process.stderr.write(`wheelhouse: cannot start on 127.0.0.1:${port}: ${error instanceof Error ? error.message : String(error)}\n`);
    host.close();
    runtime.close();
    return 1;
  }
  if (!staticRoot) process.stderr.write('wheelhouse: the UI is not built (run `npm run build`); serving the API only\n');
  process.stdout.write(`Wheelhouse is running at ${server.url}\n`);
  process.stdout.write(`WebSocket: ${server.wsUrl}\n`);
  process.stdout.write(`HTTP API: ${server.apiUrl} (Authorization: Bearer <the token above>)\n`);
  await stopSignal;
  process.stdout.write('stopping…\n');
  const line = jobsOnExitLine(runtime.runningJobCount(), jobs, 'serve', home);
  if (line) process.stdout.write(`${line}\n`);
  // A second Ctrl+C means "now": skip the clean shutdown.
  const forceExit = () => process.exit(130);
  process.once('SIGINT', forceExit);
  process.once('SIGTERM', forceExit);
  // The queue stops and running turns end first, so clients still hear turn/completed; never for long.
  let graceTimer: NodeJS.Timeout | undefined;
  const grace = jobs === 'stop' && runtime.runningJobCount() > 0 ? JOB_STOP_GRACE_MS : TURN_STOP_GRACE_MS;
  await Promise.race([runtime.shutdown({ jobs }), new Promise((resolve) => (graceTimer = setTimeout(resolve, grace)))]);
  // A pending timer would keep the process alive for the rest of the grace period.
  clearTimeout(graceTimer);
  await server.close();
  host.close();
  // Turns that did not end in time are cut off here (a no-op after a clean shutdown) and recovered as interrupted at the next start.
  runtime.close();
  process.stdout.write('stopped\n');
  return 0;
}

/** The built renderer next to this bundle (dist/node -> dist/renderer). */
function rendererRoot(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(here, '../renderer'), path.join(here, '../../dist/renderer')]) {
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}
