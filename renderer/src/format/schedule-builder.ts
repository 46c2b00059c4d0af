import { nextRunTimes, utcOffsetLabel } from '../../../shared/schedule-timing.js';

/**
 * The friendly schedule builder's choices, and the cron text each one means.
 * Every choice ends as cron (shown to the person, so they learn it) except
 * "every N seconds/minutes" of a plain interval, which has no cron form.
 */
export type BuilderChoice =
  | { readonly kind: 'everyMinutes'; readonly minutes: number }
  | { readonly kind: 'everyHours'; readonly hours: number }
  | { readonly kind: 'daily'; readonly time: string }
  | { readonly kind: 'weekdays'; readonly time: string }
  | { readonly kind: 'weekly'; readonly weekday: number; readonly time: string }
  | { readonly kind: 'monthlyNth'; readonly nth: number; readonly weekday: number; readonly time: string }
  | { readonly kind: 'cron'; readonly cron: string };

export type BuilderKind = BuilderChoice['kind'];

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export const NTHS = ['first', 'second', 'third', 'fourth', 'fifth'] as const;

/** "09:00" → [9, 0]; null when it is not a time of day. */
export function parseTime(time: string): [number, number] | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(time.trim());
  if (!match) return null;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  return hours < 24 && minutes < 60 ? [hours, minutes] : null;
}

/** The cron text of a choice; null when a part of it is not valid yet (the builder says which). */
export function cronOf(choice: BuilderChoice): string | null {
  const at = (time: string) => {
    const parsed = parseTime(time);
    return parsed ? `${parsed[1]} ${parsed[0]}` : null;
  };
  switch (choice.kind) {
    case 'everyMinutes':
      return wholeIn(choice.minutes, 1, 59) ? (choice.minutes === 1 ? '* * * * *' : `*/${choice.minutes} * * * *`) : null;
    case 'everyHours':
      return wholeIn(choice.hours, 1, 23) ? (choice.hours === 1 ? '0 * * * *' : `0 */${choice.hours} * * *`) : null;
    case 'daily': {
      const time = at(choice.time);
      return time && `${time} * * *`;
    }
    case 'weekdays': {
      const time = at(choice.time);
      return time && `${time} * * 1-5`;
    }
    case 'weekly': {
      const time = at(choice.time);
      return time && `${time} * * ${choice.weekday}`;
    }
    case 'monthlyNth': {
      const time = at(choice.time);
      return time && `${time} * * ${choice.weekday}#${choice.nth}`;
    }
    case 'cron':
      return choice.cron.trim() || null;
  }
}

/**
 * The builder's choice that makes this cron text (editing a schedule opens on
 * it), or the raw expression when no friendly choice makes it.
 */
export function choiceOfCron(cron: string): BuilderChoice {
  const text = cron.trim().replace(/\s+/g, ' ');
  const time = (minute: string, hour: string) => `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
  const number = '(\\d{1,2})';
  const patterns: ReadonlyArray<[RegExp, (m: RegExpExecArray) => BuilderChoice]> = [
    [/^\* \* \* \* \*$/, () => ({ kind: 'everyMinutes', minutes: 1 })],
    [new RegExp(`^\\*/${number} \\* \\* \\* \\*$`), (m) => ({ kind: 'everyMinutes', minutes: Number(m[1]) })],
    [/^0 \* \* \* \*$/, () => ({ kind: 'everyHours', hours: 1 })],
    [new RegExp(`^0 \\*/${number} \\* \\* \\*$`), (m) => ({ kind: 'everyHours', hours: Number(m[1]) })],
    [new RegExp(`^${number} ${number} \\* \\* \\*$`), (m) => ({ kind: 'daily', time: time(m[1]!, m[2]!) })],
    [new RegExp(`^${number} ${number} \\* \\* 1-5$`), (m) => ({ kind: 'weekdays', time: time(m[1]!, m[2]!) })],
    [new RegExp(`^${number} ${number} \\* \\* ([0-6])$`), (m) => ({ kind: 'weekly', weekday: Number(m[3]), time: time(m[1]!, m[2]!) })],
    [new RegExp(`^${number} ${number} \\* \\* ([0-6])#([1-5])$`), (m) => ({ kind: 'monthlyNth', weekday: Number(m[3]), nth: Number(m[4]), time: time(m[1]!, m[2]!) })],
  ];
  for (const [pattern, choice] of patterns) {
    const match = pattern.exec(text);
    if (!match) continue;
    const chosen = choice(match);
    // Only when the friendly choice gives back the same text (e.g. not minute 75).
    if (cronOf(chosen) === text) return chosen;
  }
  return { kind: 'cron', cron: cron.trim() };
}

/** The choice in words: "every weekday at 09:00", "every 2 hours", "the first Monday of the month at 09:00". */
export function describeChoice(choice: BuilderChoice): string {
  switch (choice.kind) {
    case 'everyMinutes':
      return choice.minutes === 1 ? 'every minute' : `every ${choice.minutes} minutes`;
    case 'everyHours':
      return choice.hours === 1 ? 'every hour' : `every ${choice.hours} hours`;
    case 'daily':
      return `every day at ${choice.time}`;
    case 'weekdays':
      return `every weekday at ${choice.time}`;
    case 'weekly':
      return `every ${WEEKDAYS[choice.weekday]} at ${choice.time}`;
    case 'monthlyNth':
      return `the ${NTHS[choice.nth - 1]} ${WEEKDAYS[choice.weekday]} of the month at ${choice.time}`;
    case 'cron':
      return 'a cron expression';
  }
}

/**
 * What the person should know about daylight saving time for these run times:
 * always how it is handled, and, when the clocks change between now and the
 * last of them, that the UTC offset moves.
 */
export function dstNote(timeZone: string, nowMs: number, runs: readonly number[]): string {
  const rule = 'When clocks change for daylight saving time, a run at a time that is skipped happens at the first time after the change, and a time that comes twice runs once.';
  const last = runs[runs.length - 1];
  if (last === undefined) return rule;
  const before = utcOffsetLabel(timeZone, nowMs);
  const after = utcOffsetLabel(timeZone, last);
  return before === after ? rule : `Clocks in ${timeZone} change before the last of these runs (${before} → ${after}). ${rule}`;
}

/** The next five run times of a cron text in a zone, or the reason there are none. */
export function previewRuns(cron: string, timeZone: string, nowMs: number): { runs: number[]; error: string | null } {
  try {
    return { runs: nextRunTimes({ kind: 'cron', cron, timeZone }, nowMs, 5), error: null };
  } catch (error) {
    return { runs: [], error: (error as Error).message.replace(/^Cron\w*:\s*/, '') };
  }
}

function wholeIn(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}
