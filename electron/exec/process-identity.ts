import { execFileSync } from 'node:child_process';
import { readProcFile } from './proc-file.js';
import { hasProc, readStat } from './process-tree.js';

/**
 * Telling one process from another that later got the same pid: a pid alone
 * is reused (after a reboot, or after a long time), a pid *and* its start
 * time are not. Linux reads /proc; elsewhere (macOS) `ps`, whose start time
 * has one-second resolution — enough, since a pid is not reused within a second.
 */

/** `ps` for one pid: its state and start time, or null when there is no such process. */
function psFields(pid: number): { state: string; startTime: string; command: string } | null {
  try {
    const text = execFileSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-o', 'command=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, LC_ALL: 'C' },
    }).trim();
    // "S    Tue Nov 26 10:00:00 2026 /bin/sh /path/run.sh": the start time is five words.
    const words = text.split(/\s+/);
    if (words.length < 6) return null;
    return { state: words[0]!, startTime: words.slice(1, 6).join(' '), command: words.slice(6).join(' ') };
  } catch {
    return null;
  }
}

/** When `pid` started (an opaque string to compare), or null when it does not exist or is a zombie. */
export function startTimeOf(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (hasProc) {
    const entry = readStat(pid);
    return entry && entry.state !== 'Z' ? entry.startTime : null;
  }
  const fields = psFields(pid);
  return fields && !fields.state.startsWith('Z') ? fields.startTime : null;
}

/** True while the process that started at `startTime` with this pid is alive (not a zombie). */
export function isSameProcess(pid: number, startTime: string): boolean {
  return startTimeOf(pid) === startTime;
}

/** The command line of `pid` (arguments joined by spaces), or null; for recognising a wrapper of ours by its script path. */
export function commandLineOf(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (hasProc) {
    try {
      return readProcFile(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    } catch {
      return null;
    }
  }
  return psFields(pid)?.command ?? null;
}
