import { describe, expect, it } from 'vitest';
import { cronProblem, timeZoneProblem } from './protocol/schedule-checks.js';
import { nextRunTimes, slotsBetween, utcOffsetLabel } from './schedule-timing.js';

const iso = (times: number[]) => times.map((t) => new Date(t).toISOString());

describe('cron times in a named zone', () => {
  it('a daily 02:30 in Europe/Berlin runs at 03:00 on the spring-forward day (02:30 does not exist) and once on the fall-back day', () => {
    const spring = nextRunTimes({ kind: 'cron', cron: '30 2 * * *', timeZone: 'Europe/Berlin' }, Date.parse('2026-03-28T00:00:00Z'), 3);
    // 01:30Z = 02:30 CET; 01:00Z = 03:00 CEST (the first valid time after the gap); 00:30Z = 02:30 CEST.
    expect(iso(spring)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    const autumn = nextRunTimes({ kind: 'cron', cron: '30 2 * * *', timeZone: 'Europe/Berlin' }, Date.parse('2026-10-24T12:00:00Z'), 2);
    // 02:30 happens twice on 25 October (CEST, then CET): it runs at the first only.
    expect(iso(autumn)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('an hourly pattern runs in both copies of the repeated hour and skips none at fall-back', () => {
    const times = nextRunTimes({ kind: 'cron', cron: '0 * * * *', timeZone: 'Europe/Berlin' }, Date.parse('2026-10-24T23:30:00Z'), 4);
    expect(iso(times)).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z']);
    expect(utcOffsetLabel('Europe/Berlin', Date.parse('2026-10-25T00:00:00Z'))).toBe('UTC+2');
    expect(utcOffsetLabel('Europe/Berlin', Date.parse('2026-10-25T01:00:00Z'))).toBe('UTC+1');
  });

  it('the same wall time in New York moves by an hour of UTC across its own DST change', () => {
    const times = nextRunTimes({ kind: 'cron', cron: '0 9 * * 1-5', timeZone: 'America/New_York' }, Date.parse('2026-03-06T00:00:00Z'), 2);
    expect(iso(times)).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });

  it('6 fields take seconds first; the first Monday of the month is 1#1', () => {
    expect(iso(nextRunTimes({ kind: 'cron', cron: '*/20 * * * * *', timeZone: 'UTC' }, Date.parse('2026-01-01T00:00:00Z'), 2))).toEqual([
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
    ]);
    expect(iso(nextRunTimes({ kind: 'cron', cron: '0 9 * * 1#1', timeZone: 'UTC' }, Date.parse('2026-01-01T00:00:00Z'), 2))).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-02-02T09:00:00.000Z',
    ]);
  });

  it('says what is wrong with a bad expression or zone', () => {
    expect(cronProblem('61 * * * *')).toMatch(/minute/);
    expect(cronProblem('* * *')).toMatch(/5 fields/);
    expect(cronProblem('* * * * * * *')).toMatch(/5 fields/);
    expect(cronProblem('0 9 * * 1-5')).toBeNull();
    expect(timeZoneProblem('Mars/Olympus')).toMatch(/not a time zone/);
    expect(timeZoneProblem('Europe/Berlin')).toBeNull();
  });
});

describe('intervals and one-offs', () => {
  it('interval slots count from the anchor; a long absence is counted, not walked', () => {
    const timing = { kind: 'interval' as const, intervalMs: 1000, anchorMs: 0 };
    expect(nextRunTimes(timing, 2500, 2)).toEqual([3000, 4000]);
    const week = slotsBetween(timing, 0, 7 * 24 * 3600 * 1000, 3);
    expect(week.slots).toEqual([604_798_000, 604_799_000, 604_800_000]);
    expect(week.leftOut).toBe(604_797);
  });

  it('a one-off has one time, and none once it has passed', () => {
    expect(nextRunTimes({ kind: 'once', at: 10 }, 5, 5)).toEqual([10]);
    expect(nextRunTimes({ kind: 'once', at: 10 }, 10, 5)).toEqual([]);
  });
});
