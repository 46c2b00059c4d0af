import { ArrowDownToLine, ChevronDown, ChevronUp, Download, Search } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { Job, JobRun } from '../../../../shared/protocol/index.js';
import { showRequestError } from '../../stores/toast-store.js';
import { JobLogSource } from '../../stores/job-log-store.js';
import { client, useJobsStore } from '../../services/services.js';
import { JobLogView, type JobLogViewHandle } from './job-log-view.js';
import { JobTasks, taskPrefix } from './job-tasks.js';
import './job-log.css';

const count = new Intl.NumberFormat('en-US');
/** Typing pauses this long before the runtime is asked. */
const SEARCH_DELAY_MS = 250;

const OUTCOMES: Readonly<Record<string, string>> = {
  completed: 'completed',
  failed: 'failed',
  'timed-out': 'timed out',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

function runLabel(run: JobRun | undefined, number: number, newest: number, live: boolean): string {
  const how = run?.outcome ? (OUTCOMES[run.outcome] ?? run.outcome) : number === newest && live ? 'running' : null;
  return how ? `Attempt ${number} — ${how}` : `Attempt ${number}`;
}

/** "1.2 MB": a log's size, for the line under the output. */
function sizeLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file name from the job's name: letters, digits, dashes. */
const fileNameOf = (job: Job, attempt: number) => `${job.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'job'}-attempt-${attempt}.log`;

/**
 * A command job's output: which attempt, search within it, follow / jump to
 * the end, download; and the log view itself. Each attempt's output is its
 * own source, made when it is chosen and dropped when another is.
 */
export function JobOutput({ job }: { readonly job: Job }) {
  const runs = useJobsStore((s) => s.details[job.id]?.runs);
  /** The attempt the person chose; null: always the newest. */
  const [chosen, setChosen] = useState<number | null>(null);
  const attempt = chosen !== null && chosen <= job.runs ? chosen : job.runs;
  const live = job.status === 'running' || job.status === 'paused';
  const [source, setSource] = useState<JobLogSource | null>(null);

  useEffect(() => {
    const made = new JobLogSource(client, job.id, attempt);
    setSource(made);
    return () => made.dispose();
  }, [job.id, attempt]);

  // A change of state (the run ended, was paused) may come without more output: read where the log stands.
  useEffect(() => {
    source?.refresh();
  }, [source, job.status, job.updatedAt]);

  const selectId = useId();
  const numbers = Array.from({ length: job.runs }, (_, i) => job.runs - i);
  const picker =
    job.runs > 1 ? (
      <span className="log-attempt">
        <label htmlFor={selectId} className="visually-hidden">
          Attempt
        </label>
        <select
          id={selectId}
          className="log-attempt-select"
          data-testid="job-attempt"
          value={attempt}
          onChange={(event) => {
            const value = Number(event.target.value);
            setChosen(value === job.runs ? null : value);
          }}
        >
          {numbers.map((n) => (
            <option key={n} value={n}>
              {runLabel(runs?.find((r) => r.run === n), n, job.runs, live)}
            </option>
          ))}
        </select>
      </span>
    ) : null;

  const tasks = runs?.find((r) => r.run === attempt)?.tasks;
  if (!source) return null;
  return (
    <LogPanel
      key={`${source.jobId}:${source.attempt}`}
      job={job}
      source={source}
      picker={picker}
      tasks={tasks && tasks.length > 0 ? (show) => <JobTasks tasks={tasks} shown={show.task} onShow={show.set} /> : null}
    />
  );
}

interface TaskShown {
  readonly task: number | null;
  readonly set: (index: number | null) => void;
}

function LogPanel({
  job,
  source,
  picker,
  tasks,
}: {
  readonly job: Job;
  readonly source: JobLogSource;
  readonly picker: React.ReactNode;
  /** A job array's sub-runs; choosing one finds its lines. */
  readonly tasks: ((shown: TaskShown) => React.ReactNode) | null;
}) {
  const view = useRef<JobLogViewHandle>(null);
  const [following, setFollowing] = useState(true);
  const [query, setQuery] = useState('');
  const shownTask = /^\[task (\d+)\] $/.exec(query)?.[1];
  const [downloading, setDownloading] = useState<number | null>(null);
  const search = useStore(source.store, (s) => s.search);
  const lineCount = useStore(source.store, (s) => s.lineCount);
  const bytes = useStore(source.store, (s) => s.bytes);
  const ended = useStore(source.store, (s) => s.ended);
  const loaded = useStore(source.store, (s) => s.loaded);
  const error = useStore(source.store, (s) => s.error);
  const searchInput = useRef<HTMLInputElement>(null);
  const topLine = useRef(0);
  const countId = useId();

  useEffect(() => {
    const timer = setTimeout(() => void source.search(query, topLine.current), query === '' ? 0 : SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [query, source]);

  const current = search.current >= 0 ? (search.matches[search.current] ?? null) : null;
  // A match found first, or the next or previous one: the view goes there.
  useEffect(() => {
    if (current !== null) view.current?.showLine(current);
    // `shown` changes each time the person (or the search) asks to go to the current match.
  }, [search.shown]);

  const step = (direction: 1 | -1) => source.step(direction);

  const download = async () => {
    setDownloading(0);
    try {
      const blob = await source.plainText((fraction) => setDownloading(fraction));
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileNameOf(job, source.attempt);
      document.body.append(link);
      link.click();
      link.remove();
      // The download has its copy once the click is handled.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (failure) {
      showRequestError(failure);
    } finally {
      setDownloading(null);
    }
  };

  const found = `${count.format(search.matches.length)}${search.truncated ? '+' : ''}`;
  const matchLabel =
    search.query === ''
      ? ''
      : search.matches.length === 0
        ? search.searching
          ? 'Searching…'
          : 'No match'
        : `${search.current + 1} of ${found}${search.searching ? '…' : ''}`;

  return (
    <div
      className="job-output-panel"
      onKeyDown={(event) => {
        // The browser's find sees only the lines on screen: find in the output searches all of it.
        if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'f') {
          event.preventDefault();
          searchInput.current?.focus();
          searchInput.current?.select();
        }
      }}
    >
      <div className="log-toolbar">
        <h2 className="job-section-title log-title">Output</h2>
        {picker}
        <div
          className="log-search"
          role="search"
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              step(event.shiftKey ? -1 : 1);
            } else if (event.key === 'Escape' && query !== '') {
              event.preventDefault();
              setQuery('');
            }
          }}
        >
          <Search size={13} aria-hidden="true" />
          <input
            ref={searchInput}
            type="search"
            placeholder="Search output"
            aria-label="Search output"
            aria-describedby={countId}
            data-testid="log-search"
            value={query}
            onChange={(event) => setQuery(event.target.value.replace(/[\r\n]/g, ''))}
          />
          <span className="log-search-count" id={countId} data-testid="log-search-count" aria-live="polite">
            {matchLabel}
          </span>
          <button type="button" className="icon-button" aria-label="Previous match" title="Previous match (Shift+Enter)" data-testid="log-search-previous" disabled={search.matches.length === 0} onClick={() => step(-1)}>
            <ChevronUp size={15} aria-hidden="true" />
          </button>
          <button type="button" className="icon-button" aria-label="Next match" title="Next match (Enter)" data-testid="log-search-next" disabled={search.matches.length === 0} onClick={() => step(1)}>
            <ChevronDown size={15} aria-hidden="true" />
          </button>
        </div>
        <button
          type="button"
          className="button button-secondary log-button"
          data-testid="log-jump-end"
          aria-pressed={following}
          title={following ? 'Showing new output as it comes' : 'Go to the last line and follow new output'}
          onClick={() => view.current?.followEnd()}
        >
          <ArrowDownToLine size={14} aria-hidden="true" />
          {following && !ended ? 'Following' : 'Jump to end'}
        </button>
      </div>
      {tasks?.({ task: shownTask === undefined ? null : Number(shownTask), set: (index) => setQuery(index === null ? '' : taskPrefix(index)) })}
      <div className="log-frame">
        <JobLogView
          source={source}
          label={`Output of attempt ${source.attempt}`}
          query={search.query}
          currentLine={current}
          following={following}
          onFollowingChange={setFollowing}
          onTopLine={(line) => {
            topLine.current = line;
          }}
          handle={view}
        />
        {error ? (
          <p className="log-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
      <div className="log-footer">
        <p data-testid="log-footer">
          {!loaded ? 'Reading the log…' : `${count.format(lineCount)} ${lineCount === 1 ? 'line' : 'lines'} · ${sizeLabel(bytes)}${ended ? '' : ' · still running'}`}
        </p>
        <button
          type="button"
          className="button-ghost log-download"
          data-testid="log-download"
          title="Save this attempt’s whole output as a text file"
          disabled={downloading !== null || bytes === 0}
          onClick={() => void download()}
        >
          <Download size={14} aria-hidden="true" />
          {downloading === null ? 'Download log' : `Preparing… ${Math.round(downloading * 100)}%`}
        </button>
      </div>
    </div>
  );
}
