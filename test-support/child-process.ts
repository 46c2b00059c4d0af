import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** How a child process ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A spawned child with its exit as a promise and its stderr kept for failure messages. */
export interface TrackedChild {
  readonly child: ChildProcess;
  readonly exited: Promise<ChildExit>;
  stderr(): string;
  /** Sends `signal` (if still running) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<ChildExit>;
}

const running = new Set<TrackedChild>();

/** Spawns a child that `killAllChildren` will clean up if a test forgets to. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): TrackedChild {
  const child = spawn(command, args, options);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const tracked: TrackedChild = {
    child,
    exited,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  running.add(tracked);
  void exited.then(() => running.delete(tracked));
  return tracked;
}

/** Kills every child still running (afterEach safety net). */
export async function killAllChildren(): Promise<void> {
  await Promise.all([...running].map((tracked) => tracked.stop('SIGKILL')));
}
