import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../../store/private-files.js';
import { ExecError } from '../exec-error.js';
import type { DetachedRunHandle, DetachedRunPlace, DetachedRunState } from '../detached/detached-run.js';

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * What SSH and Slurm runs share on this machine: a copy of each run's log
 * (fetched as it grows, read by job pages like a local log) and the last
 * state each run was seen in, which `state` and `isAlive` answer from
 * without a round trip (a run not seen yet counts as running: its follower
 * finds out, and nothing is ever started beside a run that might be alive).
 */
export class MirroredRuns {
  private readonly states = new Map<string, DetachedRunState>();

  constructor(
    /** This machine's folder for the copies: `<runsDir>/<environment id>`. */
    private readonly mirrorDir: string,
  ) {}

  checkRunId(runId: string): void {
    if (!RUN_ID.test(runId)) throw new ExecError('invalid-spec', `a run id is letters, digits, dots, dashes and underscores, got ${JSON.stringify(runId)}`);
  }

  /** A fresh, empty copy of the log for a run about to start (what a crash left of one is replaced). */
  prepareMirror(runId: string): string {
    const dir = path.join(this.mirrorDir, runId);
    try {
      ensurePrivateDir(this.mirrorDir);
      fs.rmSync(dir, { recursive: true, force: true });
      ensurePrivateDir(dir);
      const logPath = path.join(dir, 'output.log');
      fs.closeSync(fs.openSync(logPath, 'wx', 0o600));
      return logPath;
    } catch (error) {
      throw new ExecError('log-failed', `cannot make the run folder ${dir}: ${(error as Error).message}`);
    }
  }

  seen(runId: string, state: DetachedRunState): void {
    this.states.set(runId, state);
  }

  state(handle: DetachedRunHandle): DetachedRunState {
    return this.states.get(handle.runId) ?? { state: 'running' };
  }

  isAlive(handle: DetachedRunHandle): boolean {
    return this.state(handle).state === 'running';
  }

  readLog(place: DetachedRunPlace, offset: number, length: number): Buffer {
    let fd: number;
    try {
      fd = fs.openSync(place.logPath, 'r');
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

  logSize(place: DetachedRunPlace): number {
    try {
      return fs.statSync(place.logPath).size;
    } catch {
      return 0;
    }
  }

  appendNote(place: DetachedRunPlace, text: string): void {
    try {
      fs.appendFileSync(place.logPath, text);
    } catch {
      // The job's detail says what happened.
    }
  }

  removeMirror(place: DetachedRunPlace): void {
    this.states.delete(place.runId);
    fs.rmSync(path.dirname(place.logPath), { recursive: true, force: true });
  }
}
