import fs from 'node:fs';
import net from 'node:net';
import type { ChildProcess } from 'node:child_process';

/**
 * What a test leaves behind: child processes, open handles (servers,
 * sockets, pipes, watchers: the ones that keep Node running) and active
 * timers. `LeakWatch` takes a snapshot before a test and names whatever the
 * test added and did not close; test-support/leak-check-setup.ts runs it
 * around every test of the suite.
 */

/** The variable every process started from a test worker inherits, naming that worker. */
export const OWNER_VARIABLE = 'WHEELHOUSE_TEST_OWNER';

/** One thing left behind, in words a failure message can show. */
export interface Leak {
  readonly kind: 'process' | 'handle' | 'timer';
  readonly description: string;
  /** Closes or kills it, so the tests after this one start clean. */
  dispose(): void;
}

// ---------------------------------------------------------------------------
// Processes

interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Start time in clock ticks since boot: a pid reused later is another process. */
  readonly started: string;
  readonly command: string;
}

const processKey = (info: ProcessInfo) => `${info.pid}@${info.started}`;

/** `/proc/<pid>/stat` fields after the command name; null when the process is gone or a zombie. */
function statFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // A zombie has exited; its parent reaps it on its next turn of the event loop.
  return fields[0] === 'Z' || fields[0] === 'X' ? null : fields;
}

function processInfo(pid: number): ProcessInfo | null {
  const fields = statFields(pid);
  if (!fields) return null;
  let command = '';
  try {
    command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return null;
  }
  // Field 4 of stat is the parent, field 22 the start time; `fields` starts at field 3.
  return { pid, ppid: Number(fields[1]), started: fields[19] ?? '', command };
}

function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** Every live process below `root` in the process tree. */
export function descendantsOf(root: number): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  const queue = childrenOf(root);
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const info = processInfo(pid);
    if (info) found.push(info);
    queue.push(...childrenOf(pid));
  }
  return found;
}

/**
 * Every live process whose environment names `owner` in OWNER_VARIABLE: this
 * also finds a process whose parent died, which the tree no longer shows.
 */
export function processesOwnedBy(owner: string): ProcessInfo[] {
  const needle = `\0${OWNER_VARIABLE}=${owner}\0`;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const pid = Number(name);
    if (pid === process.pid) return [];
    try {
      if (!`\0${fs.readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(needle)) return [];
    } catch {
      return [];
    }
    const info = processInfo(pid);
    return info ? [info] : [];
  });
}

function processLeak(info: ProcessInfo): Leak {
  return {
    kind: 'process',
    description: `process ${info.pid}: ${info.command.slice(0, 200)}`,
    dispose: () => {
      // Only if it is still the same process (its pid may have been reused).
      if (processInfo(info.pid)?.started !== info.started) return;
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    },
  };
}

// ---------------------------------------------------------------------------
// Handles

type Handle = object;

/** Node's list of the handles keeping the event loop alive (ref'd servers, sockets, pipes, children, watchers). */
function activeHandles(): Handle[] {
  const list = (process as unknown as { _getActiveHandles?: () => Handle[] })._getActiveHandles;
  return typeof list === 'function' ? list.call(process) : [];
}

function describeHandle(handle: Handle): string {
  if (handle instanceof net.Server) {
    const address = handle.address();
    return `a server listening on ${typeof address === 'string' ? address : address ? `${address.address}:${address.port}` : 'an unknown address'}`;
  }
  if (handle instanceof net.Socket) {
    if (handle.remotePort !== undefined) {
      return `a socket from ${handle.localAddress}:${handle.localPort} to ${handle.remoteAddress}:${handle.remotePort}`;
    }
    return 'a pipe or stream (a child process\'s stdio, or a socket not yet connected)';
  }
  const child = handle as Partial<ChildProcess>;
  if (typeof child.pid === 'number' && Array.isArray(child.spawnargs)) {
    return `a child process handle ${child.pid}: ${child.spawnargs.join(' ').slice(0, 200)}`;
  }
  return `a ${handle.constructor?.name ?? 'handle'}`;
}

function handleLeak(handle: Handle): Leak {
  return {
    kind: 'handle',
    description: describeHandle(handle),
    dispose: () => {
      const closable = handle as { destroy?: () => void; close?: () => void; kill?: (signal: string) => void };
      if (typeof closable.kill === 'function') closable.kill('SIGKILL');
      else if (typeof closable.destroy === 'function') closable.destroy();
      else closable.close?.();
    },
  };
}

// ---------------------------------------------------------------------------
// Timers

interface TrackedTimer {
  readonly timer: NodeJS.Timeout;
  readonly serial: number;
  readonly repeats: boolean;
  readonly delayMs: number;
  /** Where it was created (its stack is formatted only when reported). */
  readonly origin: Error;
}

/** Timers made through the patched `setTimeout` / `setInterval`, until they fire or are cleared. */
const timers = new Map<NodeJS.Timeout, TrackedTimer>();
let timerSerial = 0;
let timersPatched = false;

/** A timer that has not fired (or is an interval) and was not cleared. */
function timerActive(timer: NodeJS.Timeout): boolean {
  return (timer as unknown as { _destroyed?: boolean })._destroyed !== true;
}

/**
 * Replaces the global `setTimeout` / `setInterval` with versions that record
 * each timer and where it was made. Vitest keeps its own references to the
 * originals, so its timers are not recorded.
 */
export function recordTimers(): void {
  if (timersPatched) return;
  timersPatched = true;
  const originalTimeout = globalThis.setTimeout;
  const originalInterval = globalThis.setInterval;
  const record = (timer: NodeJS.Timeout, repeats: boolean, delay: unknown, origin: Error) => {
    timerSerial += 1;
    timers.set(timer, { timer, serial: timerSerial, repeats, delayMs: Number(delay ?? 0), origin });
    return timer;
  };
  const patchedTimeout = function (this: unknown, ...args: Parameters<typeof setTimeout>) {
    const origin = new Error('created here');
    const [callback, ...rest] = args as unknown as [(...a: unknown[]) => void, ...unknown[]];
    // Forgotten once it has fired: a fired timeout is no longer a leak.
    const wrapped = function (this: unknown, ...callbackArgs: unknown[]) {
      timers.delete(timer);
      return callback.apply(this, callbackArgs);
    };
    const timer = (originalTimeout as unknown as (...a: unknown[]) => NodeJS.Timeout)(wrapped, ...rest);
    return record(timer, false, rest[0], origin);
  };
  const patchedInterval = function (this: unknown, ...args: Parameters<typeof setInterval>) {
    const origin = new Error('created here');
    const timer = (originalInterval as unknown as (...a: unknown[]) => NodeJS.Timeout)(...(args as unknown[]));
    return record(timer, true, args[1], origin);
  };
  copyExtras(originalTimeout, patchedTimeout);
  copyExtras(originalInterval, patchedInterval);
  globalThis.setTimeout = patchedTimeout as unknown as typeof setTimeout;
  globalThis.setInterval = patchedInterval as unknown as typeof setInterval;
}

/** Copies what Node hangs on the timer functions (`util.promisify.custom`) to their replacements. */
function copyExtras(from: object, to: object): void {
  for (const key of Reflect.ownKeys(from)) {
    if (['length', 'name', 'prototype'].includes(key as string)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(from, key);
    if (descriptor) Object.defineProperty(to, key, descriptor);
  }
}

/** The first frame of a stack that is not this file or Node's own code. */
function creationSite(origin: Error): string {
  const frames = (origin.stack ?? '').split('\n').slice(1).map((line) => line.trim());
  return frames.find((frame) => !frame.includes('/test-support/leak-check.ts') && !frame.includes('node:internal') && !frame.includes('(node:')) ?? frames[0] ?? 'an unknown place';
}

function timerLeak(tracked: TrackedTimer): Leak {
  return {
    kind: 'timer',
    description: `${tracked.repeats ? 'an interval' : 'a timeout'} of ${tracked.delayMs} ms ${creationSite(tracked.origin)}`,
    dispose: () => {
      clearTimeout(tracked.timer);
      timers.delete(tracked.timer);
    },
  };
}

/** Recorded timers that have fired, been cleared, or been unref'd no longer keep anything alive. */
function liveTimers(): TrackedTimer[] {
  const live: TrackedTimer[] = [];
  for (const tracked of timers.values()) {
    if (!timerActive(tracked.timer)) timers.delete(tracked.timer);
    else if (tracked.timer.hasRef()) live.push(tracked);
  }
  return live;
}

// ---------------------------------------------------------------------------

/** A snapshot of what existed before a test; `leaks()` is what the test added and left. */
export class LeakWatch {
  private readonly processes: Set<string>;
  private readonly handles: Set<Handle>;
  private readonly timerSerial: number;

  /** `ownedBy`: also look for processes that carry this owner in their environment (orphans included). */
  constructor(private readonly ownedBy?: string) {
    this.processes = new Set(this.currentProcesses().map(processKey));
    this.handles = new Set(activeHandles());
    this.timerSerial = timerSerial;
  }

  private currentProcesses(): ProcessInfo[] {
    const tree = descendantsOf(process.pid);
    if (this.ownedBy === undefined) return tree;
    const seen = new Set(tree.map(processKey));
    return [...tree, ...processesOwnedBy(this.ownedBy).filter((info) => !seen.has(processKey(info)))];
  }

  /**
   * What exists now that did not when the snapshot was taken. A new process
   * below one that existed before (a server a whole file shares, started in
   * beforeAll) belongs to that server: the file-level check sees it when the
   * server stops.
   */
  leaks(): Leak[] {
    const now = this.currentProcesses();
    const byPid = new Map(now.map((info) => [info.pid, info]));
    const underSharedProcess = (info: ProcessInfo): boolean => {
      for (let parent = byPid.get(info.ppid); parent; parent = byPid.get(parent.ppid)) {
        if (this.processes.has(processKey(parent))) return true;
      }
      return false;
    };
    return [
      ...now
        .filter((info) => !this.processes.has(processKey(info)) && !underSharedProcess(info))
        .map(processLeak),
      ...activeHandles()
        .filter((handle) => !this.handles.has(handle))
        .map(handleLeak),
      ...liveTimers()
        .filter((tracked) => tracked.serial > this.timerSerial)
        .map(timerLeak),
    ];
  }
}

/** The failure message for what a test left behind. */
export function describeLeaks(leaks: readonly Leak[], when: string): string {
  return [`${when} left behind ${leaks.length} thing${leaks.length === 1 ? '' : 's'} it started (closed now):`, ...leaks.map((leak) => `  - ${leak.description}`)].join('\n');
}
