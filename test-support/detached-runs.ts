import fs from 'node:fs';
import path from 'node:path';
import type { DetachedAttachment, DetachedEnvironment, DetachedRunEvent, DetachedRunHandle } from '../electron/exec/index.js';
import { signalTree } from '../electron/exec/process-tree.js';

/**
 * Detached runs outlive whoever started them, tests included: a test that
 * leaves one behind has a bug. These find live wrappers of runs under a
 * folder (a test's home), so `afterEach` can fail on them — after ending
 * them, so one failing test does not leak into the next.
 */

/** A run's own live shells (`/bin/sh …/run.sh` or `…/command.sh`) under `dir` whose run has not recorded its end (Linux). */
function liveRunShells(dir: string): { pid: number; runDir: string }[] {
  if (!fs.existsSync('/proc/self/cmdline')) return [];
  const found: { pid: number; runDir: string }[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    let stat: string;
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
      stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue;
    }
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    const args = cmdline.split('\0');
    const script = args[1] ?? '';
    if (state === 'Z' || args[0] !== '/bin/sh' || !script.startsWith(dir) || !/\/(run|command)\.sh$/.test(script)) continue;
    // A wrapper that has written `exit` is on its way out.
    if (script.endsWith('/run.sh') && fs.existsSync(path.join(path.dirname(script), 'exit'))) continue;
    found.push({ pid: Number(name), runDir: path.dirname(script) });
  }
  return found;
}

/** The folders of runs under `dir` that are still running (Linux; empty elsewhere). */
export function liveRuns(dir: string): string[] {
  return [...new Set(liveRunShells(dir).map((shell) => shell.runDir))].sort();
}

/** Ends every run still alive under `dir` (whole trees, SIGKILL) and returns how many runs there were. */
export function killRunsUnder(dir: string): number {
  const shells = liveRunShells(dir);
  for (const shell of shells) signalTree(shell.pid, 'SIGKILL');
  return new Set(shells.map((shell) => shell.runDir)).size;
}

/** For afterEach: fails when a test left a run alive under `dir`, after ending it. */
export function expectNoRunsLeft(dir: string): void {
  const shells = liveRunShells(dir);
  const left = killRunsUnder(dir);
  if (left > 0) {
    const which = shells.map((shell) => `${shell.pid} ${path.relative(dir, shell.runDir)}`).join(', ');
    throw new Error(`${left} detached run(s) were left running under ${dir} (${which}): a test must end every job it starts`);
  }
}

/** Every event of one attachment, with waiting helpers. */
export interface FollowedRun {
  readonly attachment: DetachedAttachment;
  readonly events: DetachedRunEvent[];
  text(): string;
  /** Resolves with the end event's state. */
  readonly ended: Promise<Extract<DetachedRunEvent, { type: 'end' }>['end']>;
  /** Resolves once the text so far matches. */
  until(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export function follow(environment: DetachedEnvironment, handle: DetachedRunHandle, fromOffset = 0): FollowedRun {
  const events: DetachedRunEvent[] = [];
  const waiters = new Set<() => void>();
  let resolveEnd!: (end: Extract<DetachedRunEvent, { type: 'end' }>['end']) => void;
  const ended = new Promise<Extract<DetachedRunEvent, { type: 'end' }>['end']>((resolve) => (resolveEnd = resolve));
  const text = () => Buffer.concat(events.flatMap((event) => (event.type === 'output' ? [event.data] : []))).toString('utf8');
  const attachment = environment.attach(handle, fromOffset, (event) => {
    events.push(event);
    if (event.type === 'end') resolveEnd(event.end);
    for (const wake of waiters) wake();
  });
  return {
    attachment,
    events,
    text,
    ended,
    until: (pattern, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(text())) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in the run's output; got ${JSON.stringify(text().slice(-500))}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
  };
}
