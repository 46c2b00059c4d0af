/**
 * Progress read from what a command prints, for jobs that ask for it: the
 * last percentage ("42%", "12.5 %") or count ("3/10", "[ 7 / 20 ]") on a line.
 * Terminal escapes are ignored; a line split across chunks is joined first.
 */

// CSI and OSC sequences, and other two-byte escapes.
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
const PERCENT = /(\d{1,3}(?:\.\d+)?)\s?%/g;
const COUNT = /(?<![\d.])(\d{1,9})\s?\/\s?(\d{1,9})(?![\d.]|\s?%)/g;
/** A partial line longer than this is not waited for. */
const MAX_CARRY = 512;

/** The progress one line shows, or null. A percentage wins over a count on the same line. */
export function progressInLine(line: string): number | null {
  const text = line.replace(ESCAPES, '');
  let found: number | null = null;
  for (const match of text.matchAll(PERCENT)) {
    const value = Number(match[1]);
    if (value <= 100) found = value;
  }
  if (found !== null) return found;
  for (const match of text.matchAll(COUNT)) {
    const done = Number(match[1]);
    const total = Number(match[2]);
    if (total > 0 && done <= total) found = (done / total) * 100;
  }
  return found;
}

export class OutputProgressParser {
  private carry = '';

  /** Feeds decoded output; returns the newest progress found in its complete lines (CR or LF ended). */
  push(text: string): number | null {
    const data = this.carry + text;
    const lastBreak = Math.max(data.lastIndexOf('\n'), data.lastIndexOf('\r'));
    if (lastBreak < 0) {
      this.carry = data.length > MAX_CARRY ? '' : data;
      return null;
    }
    this.carry = data.slice(lastBreak + 1);
    if (this.carry.length > MAX_CARRY) this.carry = '';
    const lines = data.slice(0, lastBreak).split(/[\r\n]+/);
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      const progress = progressInLine(lines[i]!);
      if (progress !== null) return progress;
    }
    return null;
  }
}

/** Time left from the rate of progress since the run's first sample (running time only). */
export class EtaEstimator {
  private origin: { progress: number; activeMs: number } | null = null;

  /** Needs at least a second and one point of progress beyond the first sample. */
  estimate(progress: number | null, activeMs: number): number | null {
    if (progress === null) return null;
    if (this.origin === null || progress < this.origin.progress) {
      this.origin = { progress, activeMs };
      return null;
    }
    const gained = progress - this.origin.progress;
    const spent = activeMs - this.origin.activeMs;
    if (gained < 1 || spent < 1000) return null;
    return Math.round(((100 - progress) * spent) / gained);
  }
}
