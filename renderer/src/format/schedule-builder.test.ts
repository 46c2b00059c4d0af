import { describe, expect, it } from 'vitest';
import { choiceOfCron, cronOf, describeChoice, dstNote, previewRuns, type BuilderChoice } from './schedule-builder.js';

describe('the schedule builder', () => {
  it('turns friendly choices into cron text and words', () => {
    expect(cronOf({ kind: 'weekdays', time: '09:00' })).toBe('0 9 * * 1-5');
    expect(describeChoice({ kind: 'weekdays', time: '09:00' })).toBe('every weekday at 09:00');
    expect(cronOf({ kind: 'everyHours', hours: 2 })).toBe('0 */2 * * *');
    expect(cronOf({ kind: 'everyMinutes', minutes: 1 })).toBe('* * * * *');
    expect(cronOf({ kind: 'monthlyNth', nth: 1, weekday: 1, time: '9:30' })).toBe('30 9 * * 1#1');
    expect(describeChoice({ kind: 'monthlyNth', nth: 1, weekday: 1, time: '09:30' })).toBe('the first Monday of the month at 09:30');
    expect(cronOf({ kind: 'daily', time: '25:00' })).toBeNull();
    expect(cronOf({ kind: 'everyHours', hours: 0 })).toBeNull();
  });

  it('reads a saved cron text back into the choice that makes it, so editing opens on the same words', () => {
    const choices: BuilderChoice[] = [
      { kind: 'everyMinutes', minutes: 1 },
      { kind: 'everyMinutes', minutes: 15 },
      { kind: 'everyHours', hours: 1 },
      { kind: 'everyHours', hours: 2 },
      { kind: 'daily', time: '07:05' },
      { kind: 'weekdays', time: '09:00' },
      { kind: 'weekly', weekday: 5, time: '18:30' },
      { kind: 'monthlyNth', nth: 1, weekday: 1, time: '09:00' },
    ];
    for (const choice of choices) expect(choiceOfCron(cronOf(choice)!)).toEqual(choice);
    expect(choiceOfCron('0 9 1 * *')).toEqual({ kind: 'cron', cron: '0 9 1 * *' });
    expect(choiceOfCron('75 9 * * *')).toEqual({ kind: 'cron', cron: '75 9 * * *' });
  });

  it('previews the next five runs and notes a clock change among them', () => {
    const now = Date.parse('2026-03-26T12:00:00Z');
    const { runs } = previewRuns('0 9 * * *', 'Europe/Berlin', now);
    expect(runs.map((t) => new Date(t).toISOString())).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
    expect(dstNote('Europe/Berlin', now, runs)).toMatch(/^Clocks in Europe\/Berlin change before the last of these runs \(UTC\+1 → UTC\+2\)/);
    expect(dstNote('UTC', now, runs)).toMatch(/^When clocks change/);
    expect(previewRuns('0 9 * *', 'UTC', now).error).toMatch(/five, six/);
  });
});
