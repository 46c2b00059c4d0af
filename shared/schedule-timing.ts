import { Cron } from 'croner';
import { CRON_MODE } from './protocol/schedule-checks.js';

/**
 * When a schedule runs: one implementation for the runtime (which fires the
 * runs) and the builder in the UI (which shows the next five before saving).
 * Cron text is parsed by croner; DST is handled as croner does (Vixie cron's
 * rules): a fixed time skipped by a spring-forward change runs at the first
 * valid time after it, a fixed time that occurs twice at fall-back runs once,
 * and patterns with steps or wildcards in the time ("every 30 minutes") skip
 * the missing hour and run in both copies of the repeated one.
 */

/** A cron expression (5 fields, or 6 with seconds first), a fixed interval, or one moment. */
export type ScheduleTiming =
  | { readonly kind: 'cron'; readonly cron: string; readonly timeZone: string }
  | { readonly kind: 'interval'; readonly intervalMs: number; readonly anchorMs: number }
  | { readonly kind: 'once'; readonly at: number };

function cronOf(cron: string, timeZone: string): Cron {
  return new Cron(cron.trim(), { timezone: timeZone, mode: CRON_MODE });
}

/** The time zone of this computer (what a schedule without one uses). */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The run times strictly after `afterMs`, at most `count` of them (fewer for a one-off or a pattern that ends). */
export function nextRunTimes(timing: ScheduleTiming, afterMs: number, count: number): number[] {
  const times: number[] = [];
  if (count <= 0) return times;
  switch (timing.kind) {
    case 'once':
      if (timing.at > afterMs) times.push(timing.at);
      return times;
    case 'interval': {
      const { intervalMs, anchorMs } = timing;
      const steps = afterMs < anchorMs ? 0 : Math.floor((afterMs - anchorMs) / intervalMs) + 1;
      for (let i = 0; i < count; i += 1) times.push(anchorMs + (steps + i) * intervalMs);
      return times;
    }
    case 'cron': {
      const cron = cronOf(timing.cron, timing.timeZone);
      let from = new Date(afterMs);
      for (let i = 0; i < count; i += 1) {
        const next = cron.nextRun(from);
        if (!next) break;
        times.push(next.getTime());
        from = next;
      }
      return times;
    }
  }
}

/** The next run strictly after `afterMs`, or null when there is none. */
export function nextRunTime(timing: ScheduleTiming, afterMs: number): number | null {
  return nextRunTimes(timing, afterMs, 1)[0] ?? null;
}

/**
 * Slots in (fromMs, toMs], oldest first, at most `cap` of the newest ones, and how many older ones
 * were left out: what a schedule missed while Wheelhouse was not running. An interval's slots are
 * counted, not walked, so a long absence costs nothing.
 */
export function slotsBetween(timing: ScheduleTiming, fromMs: number, toMs: number, cap: number): { slots: number[]; leftOut: number } {
  if (toMs <= fromMs) return { slots: [], leftOut: 0 };
  if (timing.kind === 'interval') {
    const first = nextRunTime(timing, fromMs);
    if (first === null || first > toMs) return { slots: [], leftOut: 0 };
    const total = Math.floor((toMs - first) / timing.intervalMs) + 1;
    const kept = Math.min(total, cap);
    const slots: number[] = [];
    for (let i = total - kept; i < total; i += 1) slots.push(first + i * timing.intervalMs);
    return { slots, leftOut: total - kept };
  }
  // Walking a cron pattern: a ring of the newest `cap`, counting the rest (bounded by a year of minutes).
  const slots: number[] = [];
  let leftOut = 0;
  let from = fromMs;
  for (let walked = 0; walked < 600_000; walked += 1) {
    const next = nextRunTime(timing, from);
    if (next === null || next > toMs) break;
    slots.push(next);
    if (slots.length > cap) {
      slots.shift();
      leftOut += 1;
    }
    from = next;
  }
  return { slots, leftOut };
}

/** "UTC+1", "UTC−4:30": the offset of `timeZone` at `atMs`, for the DST note. */
export function utcOffsetLabel(timeZone: string, atMs: number): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'shortOffset' })
    .formatToParts(new Date(atMs))
    .find((p) => p.type === 'timeZoneName')?.value;
  return (part ?? 'GMT').replace(/^GMT/, 'UTC').replace(/^UTC$/, 'UTC+0');
}
