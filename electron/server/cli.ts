import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveHome } from '../runtime/home.js';
import { WHEELHOUSE_VERSION } from '../runtime/version.js';
import type { JobsOnExit, LogError } from './command-runtime.js';
import { answerFirstRequest, STOPPED_BEFORE_INPUT } from './first-answer.js';
import { DEFAULT_MAX_UNSENT_BYTES } from './stdio-carrier.js';

// The entry of the `wheelhouse` command: parses the arguments, then loads the one command asked for
// (app-server-command.ts, serve-command.ts), so `app-server` answers `initialize` having loaded little more than this.

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
  const logError: LogError = (message, error) =>
    process.stderr.write(`wheelhouse: ${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);

  switch (command) {
    case 'app-server': {
      const mib = parsed.values['max-unsent-mib'] === undefined ? DEFAULT_MAX_UNSENT_BYTES / MIB : Number(parsed.values['max-unsent-mib']);
      if (!Number.isFinite(mib) || mib < 1 || mib > 4096) {
        process.stderr.write(`wheelhouse: --max-unsent-mib must be a number from 1 to 4096\n`);
        return 2;
      }
      // Listened for before the home is locked (see listenForStop).
      const stopSignal = listenForStop();
      // The client's `initialize` is answered before the rest of the command loads (first-answer.ts).
      const first = await answerFirstRequest(home, stopSignal);
      if (first === STOPPED_BEFORE_INPUT) {
        process.stdin.destroy(); // nothing was opened; only stdin keeps the process alive
        return 0;
      }
      // Before the runtime loads: it would grow the young generation on the way (young-generation.ts).
      await import('../host/young-generation.js');
      const { runAppServer } = await import('./app-server-command.js');
      return runAppServer({ home, maxUnsentBytes: Math.round(mib * MIB), jobs, logError, stopSignal, first });
    }
    case 'serve': {
      const port = parsed.values.port === undefined ? 0 : Number(parsed.values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`wheelhouse: --port must be a number from 0 to 65535\n`);
        return 2;
      }
      const stopSignal = listenForStop();
      await import('../host/young-generation.js');
      const { runServe } = await import('./serve-command.js');
      return runServe({ home, port, rotateToken: parsed.values['rotate-token'] === true, jobs, logError, stopSignal, staticRoot: rendererRoot() });
    }
    default:
      process.stderr.write(`wheelhouse: unknown command "${command}"\n${USAGE}\n`);
      return 2;
  }
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

/** The built renderer next to this bundle (dist/node -> dist/renderer); found here because this entry, unlike the commands' chunks, sits in dist/node. */
function rendererRoot(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(here, '../renderer'), path.join(here, '../../dist/renderer')]) {
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}
