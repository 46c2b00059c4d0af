import fs from 'node:fs';
import os from 'node:os';
import { ExecError } from '../exec-error.js';
import type { DetachedExit } from './detached-run.js';

/**
 * What every kind of detached run shares about its files on this machine:
 * the run id's shape, reading and growing a log (the run's own, or this
 * machine's copy of a remote one), and the `exit` record the scripts write.
 */

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const signalNames = new Map<number, string>(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));

export function checkRunId(runId: string): void {
  if (!RUN_ID.test(runId)) throw new ExecError('invalid-spec', `a run id is letters, digits, dots, dashes and underscores, got ${JSON.stringify(runId)}`);
}

/** The name of signal `number`, if this system has one. */
export function signalName(number: number): string | null {
  return signalNames.get(number) ?? null;
}

/** `exit 143` → code 143, SIGTERM; `ended` → nothing recorded. */
export function parseExit(text: string): DetachedExit {
  const match = /^exit (\d+)/.exec(text.trim());
  if (!match) return { exitCode: null, signal: null };
  const exitCode = Number(match[1]);
  const signal = exitCode > 128 ? signalName(exitCode - 128) : null;
  return { exitCode, signal };
}

/** `length` bytes of the log from `offset` (fewer at its end; none if it is not there). */
export function readLogFile(logPath: string, offset: number, length: number): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(logPath, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const buffer = Buffer.alloc(Math.max(0, length));
    return buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, offset));
  } finally {
    fs.closeSync(fd);
  }
}

export function logFileSize(logPath: string): number {
  try {
    return fs.statSync(logPath).size;
  } catch {
    return 0;
  }
}

export function appendLogNote(logPath: string, text: string): void {
  try {
    fs.appendFileSync(logPath, text);
  } catch {
    // A log that cannot be written to still has its output; the job's detail says what happened.
  }
}
