import { Pause, Pencil, Play, Plus, Trash2, Zap } from 'lucide-react';
import { useEffect, useRef } from 'react';
import type { Schedule } from '../../../../shared/protocol/index.js';
import { useJobsStore, useSchedulesStore } from '../../services/services.js';
import { ScheduleStrip } from './schedule-strip.js';

const OVERLAP_WORDS: Record<Schedule['overlap'], string> = {
  skip: 'skips a run while the one before is going',
  queue: 'queues a run behind the one before',
  allow: 'may run several at once',
};
const MISSED_WORDS: Record<Schedule['missed'], string> = {
  runOnce: 'runs once at start-up for runs it missed',
  skip: 'skips runs it missed',
  runAll: 'catches up missed runs',
};
const NOTIFY_WORDS: Record<Schedule['notify'], string> = { failure: 'notifies when a run fails', always: 'notifies after every run', never: 'never notifies' };

/** "cron 0 9 * * 1-5 (Europe/Berlin)", "every 2 hours", "once at …". */
export function timingWords(schedule: Schedule): string {
  if (schedule.cron !== null) return `cron ${schedule.cron} (${schedule.timeZone})`;
  if (schedule.intervalMs !== null) return `every ${intervalWords(schedule.intervalMs)}`;
  return `once at ${new Date(schedule.at ?? 0).toLocaleString()}`;
}

function intervalWords(ms: number): string {
  for (const [unit, size] of [['hour', 3_600_000], ['minute', 60_000], ['second', 1000]] as const) {
    if (ms % size === 0) return ms === size ? unit : `${ms / size} ${unit}s`;
  }
  return `${ms} ms`;
}

/** A moment as the schedule's own zone reads it ("Fri, Nov 27, 08:00 GMT+1"). */
function inZone(at: number, timeZone: string): string {
  try {
    return new Date(at).toLocaleString(undefined, { timeZone, weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  } catch {
    return new Date(at).toLocaleString();
  }
}

/** The Schedules tab: every schedule with its next run, its policies in words, its last 30 runs, and its buttons. */
export function SchedulesPage({ onNewSchedule, onEdit }: { readonly onNewSchedule: () => void; readonly onEdit: (schedule: Schedule) => void }) {
  const schedules = useSchedulesStore((s) => s.schedules);
  const loaded = useSchedulesStore((s) => s.loaded);
  const focusedId = useSchedulesStore((s) => s.focusedId);
  const sorted = [...schedules.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section className="schedules-page" aria-label="Schedules">
      <header className="jobs-header">
        <h1 className="jobs-title">Schedules</h1>
        <button type="button" className="button-primary jobs-new" data-testid="new-schedule" onClick={onNewSchedule}>
          <Plus size={15} aria-hidden="true" />
          New schedule
        </button>
      </header>
      <div className="schedules-scroll">
        {loaded && sorted.length === 0 && <p className="jobs-empty">No schedules yet. Run a build every night or a check every hour with “New schedule”.</p>}
        <ul className="schedules-list">
          {sorted.map((schedule) => (
            <ScheduleCard key={schedule.id} schedule={schedule} focused={schedule.id === focusedId} onEdit={() => onEdit(schedule)} />
          ))}
        </ul>
      </div>
    </section>
  );
}

function ScheduleCard({ schedule, focused, onEdit }: { readonly schedule: Schedule; readonly focused: boolean; readonly onEdit: () => void }) {
  const act = useSchedulesStore((s) => s.act);
  const showJob = useJobsStore((s) => s.show);
  const hideSchedules = useSchedulesStore((s) => s.hide);
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (focused) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [focused]);
  const openJob = (jobId: string) => {
    hideSchedules();
    showJob(jobId);
  };
  const next = schedule.paused ? 'Paused' : schedule.nextRunAt === null ? 'No more runs' : `Next run ${inZone(schedule.nextRunAt, schedule.timeZone)}`;
  return (
    <li ref={ref} className={`schedule-card${focused ? ' schedule-card-focused' : ''}`} data-testid="schedule-card" data-schedule-id={schedule.id}>
      <div className="schedule-card-head">
        <h2 className="schedule-name">{schedule.name}</h2>
        <span className="schedule-next" data-testid="schedule-next">
          {next}
        </span>
        <div className="schedule-actions">
          <button type="button" className="button-ghost schedule-action" data-testid="schedule-run-now" onClick={() => void act(schedule.id, 'runNow')}>
            <Zap size={14} aria-hidden="true" /> Run now
          </button>
          {schedule.paused ? (
            <button type="button" className="button-ghost schedule-action" data-testid="schedule-resume" onClick={() => void act(schedule.id, 'resume')}>
              <Play size={14} aria-hidden="true" /> Resume
            </button>
          ) : (
            <button type="button" className="button-ghost schedule-action" data-testid="schedule-pause" onClick={() => void act(schedule.id, 'pause')}>
              <Pause size={14} aria-hidden="true" /> Pause
            </button>
          )}
          <button type="button" className="button-ghost schedule-action" data-testid="schedule-edit" onClick={onEdit}>
            <Pencil size={14} aria-hidden="true" /> Edit
          </button>
          <button type="button" className="icon-button" aria-label={`Delete ${schedule.name}`} data-testid="schedule-delete" onClick={() => void act(schedule.id, 'delete')}>
            <Trash2 size={14} aria-hidden="true" />
          </button>
        </div>
      </div>
      <p className="schedule-facts">
        <span className="schedule-timing">{timingWords(schedule)}</span> · runs <code className="schedule-command">{schedule.job.kind === 'command' ? schedule.job.command : `an agent: ${schedule.job.objective}`}</code>
      </p>
      <p className="schedule-policies">
        {OVERLAP_WORDS[schedule.overlap]} · {schedule.missed === 'runAll' ? `${MISSED_WORDS.runAll} (up to ${schedule.missedLimit})` : MISSED_WORDS[schedule.missed]} · {NOTIFY_WORDS[schedule.notify]}
      </p>
      <ScheduleStrip history={schedule.history} onOpenJob={openJob} />
    </li>
  );
}
