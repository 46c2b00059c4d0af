import { useMemo, useState, type FormEvent } from 'react';
import { timeZoneProblem, type Schedule } from '../../../../shared/protocol/index.js';
import { machineTimeZone } from '../../../../shared/schedule-timing.js';
import { choiceOfCron, cronOf, describeChoice, dstNote, NTHS, previewRuns, WEEKDAYS, type BuilderChoice, type BuilderKind } from '../../format/schedule-builder.js';
import { useSchedulesStore, useThreadsStore } from '../../services/services.js';
import { jobTemplateErrors, jobTemplateFormOf, jobTemplateParams, newJobTemplateForm, type JobTemplateForm } from '../../format/job-form.js';
import { JobDialogFrame } from '../jobs/job-dialog-frame.js';
import { JobTemplateFields } from '../jobs/job-template-fields.js';
import { timingWords } from './schedules-page.js';

const KINDS: readonly { readonly kind: BuilderKind; readonly label: string }[] = [
  { kind: 'everyMinutes', label: 'Every few minutes' },
  { kind: 'everyHours', label: 'Every few hours' },
  { kind: 'daily', label: 'Every day' },
  { kind: 'weekdays', label: 'Every weekday' },
  { kind: 'weekly', label: 'Every week' },
  { kind: 'monthlyNth', label: 'Once a month' },
  { kind: 'cron', label: 'Cron expression' },
];

interface BuilderForm {
  kind: BuilderKind;
  count: string;
  time: string;
  weekday: number;
  nth: number;
  cron: string;
}

const NEW_FORM: BuilderForm = { kind: 'weekdays', count: '2', time: '09:00', weekday: 1, nth: 1, cron: '0 9 * * 1-5' };

/** The builder opened on a saved cron text: its friendly choice when one makes it. */
function builderFormOf(cron: string): BuilderForm {
  const choice = choiceOfCron(cron);
  switch (choice.kind) {
    case 'everyMinutes':
      return { ...NEW_FORM, kind: choice.kind, count: String(choice.minutes) };
    case 'everyHours':
      return { ...NEW_FORM, kind: choice.kind, count: String(choice.hours) };
    case 'daily':
    case 'weekdays':
      return { ...NEW_FORM, kind: choice.kind, time: choice.time };
    case 'weekly':
      return { ...NEW_FORM, kind: choice.kind, weekday: choice.weekday, time: choice.time };
    case 'monthlyNth':
      return { ...NEW_FORM, kind: choice.kind, weekday: choice.weekday, nth: choice.nth, time: choice.time };
    case 'cron':
      return { ...NEW_FORM, kind: 'cron', cron: choice.cron };
  }
}

/** The select's value for a schedule whose interval or one-off moment the builder cannot show: kept as it is. */
const KEEP = 'keep';

function choiceOf(form: BuilderForm): BuilderChoice {
  const count = Number(form.count);
  switch (form.kind) {
    case 'everyMinutes':
      return { kind: 'everyMinutes', minutes: count };
    case 'everyHours':
      return { kind: 'everyHours', hours: count };
    case 'daily':
    case 'weekdays':
      return { kind: form.kind, time: form.time };
    case 'weekly':
      return { kind: 'weekly', weekday: form.weekday, time: form.time };
    case 'monthlyNth':
      return { kind: 'monthlyNth', nth: form.nth, weekday: form.weekday, time: form.time };
    case 'cron':
      return { kind: 'cron', cron: form.cron };
  }
}

/**
 * "New schedule" or, with `editing`, that schedule's settings opened as they
 * are: what to run (a command or an agent job, everything New job asks) and
 * when, built from plain choices ("every weekday at 09:00") that show their
 * cron text, the next five runs and how daylight saving time is handled; then
 * the policies. An edit saves with schedule/update, sending the timing only
 * when it changed (a new timing counts from now).
 */
export function ScheduleDialog({ onClose, editing = null }: { readonly onClose: () => void; readonly editing?: Schedule | null }) {
  const projectFolder = useThreadsStore((s) => s.projectFolder);
  const create = useSchedulesStore((s) => s.create);
  const update = useSchedulesStore((s) => s.update);
  const saving = useSchedulesStore((s) => s.creating);
  const [name, setName] = useState(editing?.name ?? '');
  const [job, setJob] = useState<JobTemplateForm>(() => (editing ? jobTemplateFormOf(editing.job) : newJobTemplateForm(projectFolder ?? '')));
  const [form, setForm] = useState<BuilderForm>(() => (editing?.cron ? builderFormOf(editing.cron) : NEW_FORM));
  // An interval or a one-off (made through the API) stays as it is unless the person picks a new timing.
  const [keepTiming, setKeepTiming] = useState(editing !== null && editing.cron === null);
  const [timeZone, setTimeZone] = useState(editing?.timeZone ?? machineTimeZone());
  const [overlap, setOverlap] = useState<Schedule['overlap']>(editing?.overlap ?? 'skip');
  const [missed, setMissed] = useState<Schedule['missed']>(editing?.missed ?? 'runOnce');
  const [missedLimit, setMissedLimit] = useState(String(editing?.missedLimit ?? 5));
  const [notify, setNotify] = useState<Schedule['notify']>(editing?.notify ?? 'failure');
  const [tried, setTried] = useState(false);

  const choice = choiceOf(form);
  const cron = keepTiming ? null : cronOf(choice);
  const zoneProblem = timeZoneProblem(timeZone.trim());
  const preview = useMemo(() => (cron && !zoneProblem ? previewRuns(cron, timeZone.trim(), Date.now()) : { runs: [], error: null }), [cron, timeZone, zoneProblem]);
  const limit = Number(missedLimit);
  const errors = {
    name: name.trim() === '' ? 'Name the schedule, say “Nightly build”.' : null,
    when: keepTiming ? null : cron === null ? (form.kind === 'cron' ? 'Type a cron expression.' : 'Check the numbers and the time (like 09:00).') : preview.error,
    timeZone: keepTiming ? null : zoneProblem,
    missedLimit: missed === 'runAll' && !(Number.isInteger(limit) && limit >= 1 && limit <= 100) ? 'A whole number from 1 to 100.' : null,
  };
  const valid = Object.values(errors).every((e) => e === null) && Object.values(jobTemplateErrors(job)).every((e) => e === null);
  const shown = (error: string | null) => (tried ? error : null);
  const change = (next: Partial<BuilderForm>) => setForm((f) => ({ ...f, ...next }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (!valid || (cron === null && !keepTiming)) return;
    const policies = { overlap, missed, ...(missed === 'runAll' ? { missedLimit: limit } : {}), notify };
    const template = jobTemplateParams(job, name, editing?.job ?? null);
    let saved: Schedule | null;
    if (editing) {
      const retimed = cron !== null && (cron !== editing.cron || timeZone.trim() !== editing.timeZone);
      saved = await update({ scheduleId: editing.id, name: name.trim(), job: template, ...policies, ...(retimed ? { cron, timeZone: timeZone.trim() } : {}) });
    } else {
      saved = await create({ name: name.trim(), job: template, cron: cron!, timeZone: timeZone.trim(), ...policies });
    }
    if (saved) onClose();
  };
  return (
    <JobDialogFrame
      title={editing ? `Edit “${editing.name}”` : 'New schedule'}
      testId="schedule-dialog"
      className="schedule-dialog"
      submitLabel={editing ? 'Save changes' : 'Create schedule'}
      submitTestId="schedule-submit"
      busy={saving}
      onSubmit={(e) => void submit(e)}
      onClose={onClose}
    >
      <JobTemplateFields
        form={job}
        tried={tried}
        onChange={(next) => setJob((j) => ({ ...j, ...next }))}
        name={
          <label className="field">
            <span className="field-label">Name</span>
            <input className="field-input" data-testid="schedule-name" placeholder="Nightly build" value={name} aria-invalid={shown(errors.name) !== null} onChange={(e) => setName(e.target.value)} autoFocus />
            {shown(errors.name) && <span className="field-error">{errors.name}</span>}
          </label>
        }
      />
      <fieldset className="schedule-when">
        <legend className="field-label">When</legend>
        <div className="schedule-when-row">
          <select
            className="field-input"
            aria-label="How often"
            data-testid="schedule-kind"
            value={keepTiming ? KEEP : form.kind}
            onChange={(e) => {
              setKeepTiming(e.target.value === KEEP);
              if (e.target.value !== KEEP) change({ kind: e.target.value as BuilderKind });
            }}
          >
            {editing && editing.cron === null && <option value={KEEP}>As it is: {timingWords(editing)}</option>}
            {KINDS.map(({ kind, label }) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
          {!keepTiming && (form.kind === 'everyMinutes' || form.kind === 'everyHours') && (
            <label className="schedule-inline">
              every
              <input className="field-input schedule-count" inputMode="numeric" aria-label={form.kind === 'everyMinutes' ? 'Minutes between runs' : 'Hours between runs'} data-testid="schedule-count" value={form.count} onChange={(e) => change({ count: e.target.value })} />
              {form.kind === 'everyMinutes' ? 'minutes' : 'hours'}
            </label>
          )}
          {!keepTiming && form.kind === 'monthlyNth' && (
            <select className="field-input" aria-label="Which week of the month" value={form.nth} onChange={(e) => change({ nth: Number(e.target.value) })}>
              {NTHS.map((nth, i) => (
                <option key={nth} value={i + 1}>
                  the {nth}
                </option>
              ))}
            </select>
          )}
          {!keepTiming && (form.kind === 'weekly' || form.kind === 'monthlyNth') && (
            <select className="field-input" aria-label="Day of the week" value={form.weekday} onChange={(e) => change({ weekday: Number(e.target.value) })}>
              {WEEKDAYS.map((day, i) => (
                <option key={day} value={i}>
                  {day}
                </option>
              ))}
            </select>
          )}
          {!keepTiming && (form.kind === 'daily' || form.kind === 'weekdays' || form.kind === 'weekly' || form.kind === 'monthlyNth') && (
            <label className="schedule-inline">
              at
              <input className="field-input schedule-time" aria-label="Time of day" data-testid="schedule-time" placeholder="09:00" value={form.time} onChange={(e) => change({ time: e.target.value })} />
            </label>
          )}
          {!keepTiming && form.kind === 'cron' && (
            <input className="field-input field-mono" aria-label="Cron expression" data-testid="schedule-cron" spellCheck={false} value={form.cron} onChange={(e) => change({ cron: e.target.value })} />
          )}
        </div>
        {!keepTiming && (
        <label className="schedule-inline schedule-zone">
          Time zone
          <input className="field-input" aria-label="Time zone" data-testid="schedule-zone" value={timeZone} aria-invalid={errors.timeZone !== null} onChange={(e) => setTimeZone(e.target.value)} />
        </label>
        )}
        {!keepTiming && errors.timeZone && <span className="field-error">{errors.timeZone}</span>}
        {keepTiming ? null : errors.when ? (
          <span className="field-error" data-testid="schedule-when-error">
            {errors.when}
          </span>
        ) : (
          <div className="schedule-preview" data-testid="schedule-preview">
            <p>
              Runs {describeChoice(choice) === 'a cron expression' ? 'on this cron expression' : describeChoice(choice)}: <code data-testid="schedule-cron-text">{cron}</code>
            </p>
            <p className="field-hint">Next five runs:</p>
            <ol className="schedule-next-five" data-testid="schedule-next-five">
              {preview.runs.map((at) => (
                <li key={at}>{new Date(at).toLocaleString(undefined, { timeZone: timeZone.trim(), weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' })}</li>
              ))}
            </ol>
            <p className="field-hint" data-testid="schedule-dst-note">
              {dstNote(timeZone.trim(), Date.now(), preview.runs)}
            </p>
          </div>
        )}
      </fieldset>
      <div className="new-job-row">
        <label className="field">
          <span className="field-label">If the last run is still going</span>
          <select className="field-input" data-testid="schedule-overlap" value={overlap} onChange={(e) => setOverlap(e.target.value as Schedule['overlap'])}>
            <option value="skip">Skip the new run</option>
            <option value="queue">Run it after the last one</option>
            <option value="allow">Run both</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">Runs missed while Wheelhouse was closed</span>
          <select className="field-input" data-testid="schedule-missed" value={missed} onChange={(e) => setMissed(e.target.value as Schedule['missed'])}>
            <option value="runOnce">Run once when it starts</option>
            <option value="skip">Skip them</option>
            <option value="runAll">Run each of them</option>
          </select>
        </label>
      </div>
      <div className="new-job-row">
        {missed === 'runAll' && (
          <label className="field">
            <span className="field-label">At most this many</span>
            <input className="field-input" inputMode="numeric" value={missedLimit} aria-invalid={shown(errors.missedLimit) !== null} onChange={(e) => setMissedLimit(e.target.value)} />
            {shown(errors.missedLimit) && <span className="field-error">{errors.missedLimit}</span>}
          </label>
        )}
        <label className="field">
          <span className="field-label">Notify me</span>
          <select className="field-input" data-testid="schedule-notify" value={notify} onChange={(e) => setNotify(e.target.value as Schedule['notify'])}>
            <option value="failure">When a run fails</option>
            <option value="always">After every run</option>
            <option value="never">Never</option>
          </select>
        </label>
      </div>
    </JobDialogFrame>
  );
}
