import { startRuntime, type StartingRuntime } from '../host/start-runtime.js';
import { jobsOnExitLine, runtimeOptions, type JobsOnExit, type LogError } from './command-runtime.js';
import type { FirstAnswer } from './first-answer.js';
import { RpcHost } from './rpc-host.js';
import { serveStdio } from './stdio-carrier.js';

export interface AppServerOptions {
  readonly home: string;
  readonly maxUnsentBytes: number;
  readonly jobs: JobsOnExit;
  readonly logError: LogError;
  /** Resolves on the first SIGINT or SIGTERM (listened for before the home was locked). */
  readonly stopSignal: Promise<void>;
  /** What cli.ts read and answered before this module loaded (first-answer.ts). */
  readonly first: FirstAnswer;
}

/** `wheelhouse app-server`: JSON-RPC over stdin/stdout until the input ends or a signal comes. */
export async function runAppServer({ home, maxUnsentBytes, jobs, logError, stopSignal, first }: AppServerOptions): Promise<number> {
  let starting: StartingRuntime;
  try {
    // The client's first input has been read and answered (first-answer.ts), so the stores open now. The lock is
    // the one first-answer.ts took; when it could not take it, startRuntime tries and throws why, said in one line below.
    starting = startRuntime(runtimeOptions(home, logError), null, first.lock ?? undefined);
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
  const end = await serveStdio(host, process.stdin, process.stdout, {
    maxUnsentBytes,
    preface: first.preface,
    ...(first.initialize ? { answeredInitialize: first.initialize } : {}),
  });
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
