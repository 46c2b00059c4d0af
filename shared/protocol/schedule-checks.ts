import { Cron } from 'croner';

/**
 * What the schedule/* schemas check before anything is stored: cron text croner
 * can parse, a time zone this machine knows, an interval not too short. The
 * timing itself (next runs, DST) is shared/schedule-timing.ts.
 */

/** The shortest interval a schedule may have. */
export const MIN_INTERVAL_MS = 1000;

/** Cron text has 5 fields, or 6 with seconds first. */
export const CRON_MODE = '5-or-6-parts';

/** Why `cron` is not a usable expression in plain words, or null when it is. */
export function cronProblem(cron: string): string | null {
  try {
    new Cron(cron.trim(), { timezone: 'UTC', mode: CRON_MODE });
    return null;
  } catch (error) {
    return plainCronError((error as Error).message);
  }
}

function plainCronError(message: string): string {
  const fields = message.match(/exactly five, six, or seven|requires exactly 5 or 6 parts/);
  if (fields) return 'a cron expression has 5 fields (minute hour day month weekday), or 6 with seconds first';
  return message.replace(/^Cron\w*:\s*/, '').replace(/\.$/, '');
}

/** Why `timeZone` is not an IANA time zone this machine knows, or null when it is. */
export function timeZoneProblem(timeZone: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return null;
  } catch {
    return `${timeZone} is not a time zone this computer knows (use a name such as Europe/Berlin or America/New_York)`;
  }
}

