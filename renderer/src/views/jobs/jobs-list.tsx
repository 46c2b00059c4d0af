import { useVirtualizer } from '@tanstack/react-virtual';
import { Plus, Search } from 'lucide-react';
import { useMemo, useRef } from 'react';
import { JOB_STATUSES } from '../../../../shared/protocol/index.js';
import { STATUS_LABELS } from '../../format/job-format.js';
import { useJobsStore } from '../../services/services.js';
import { matchesJob, type JobFilter } from '../../stores/jobs-store.js';
import { JobRow } from './job-row.js';

const ROW_HEIGHT = 52;
const FILTERS: readonly JobFilter[] = ['all', ...JOB_STATUSES];

/** The dashboard: filters with counts, search, and every job in a virtualised list (smooth with 10,000). */
export function JobsList({ onNewJob }: { readonly onNewJob: () => void }) {
  const sorted = useJobsStore((s) => s.sorted);
  const loaded = useJobsStore((s) => s.loaded);
  const filter = useJobsStore((s) => s.filter);
  const search = useJobsStore((s) => s.search);
  const setFilter = useJobsStore((s) => s.setFilter);
  const setSearch = useJobsStore((s) => s.setSearch);
  const show = useJobsStore((s) => s.show);
  const counts = useMemo(() => {
    const byStatus: Record<string, number> = { all: sorted.length };
    for (const job of sorted) byStatus[job.status] = (byStatus[job.status] ?? 0) + 1;
    return byStatus;
  }, [sorted]);
  const visible = useMemo(() => sorted.filter((job) => matchesJob(job, filter, search.trim())), [sorted, filter, search]);

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    getItemKey: (index) => visible[index]!.id,
  });

  return (
    <section className="jobs-list" aria-label="Jobs">
      <header className="jobs-header">
        <h1 className="jobs-title">Jobs</h1>
        <button type="button" className="button-primary jobs-new" data-testid="new-job" onClick={onNewJob}>
          <Plus size={15} aria-hidden="true" />
          New job
        </button>
      </header>
      <div className="jobs-toolbar">
        <div className="jobs-filters" role="tablist" aria-label="Filter by status">
          {FILTERS.map((f) => (
            <button
              key={f}
              type="button"
              role="tab"
              aria-selected={filter === f}
              className="jobs-filter"
              data-testid={`job-filter-${f}`}
              onClick={() => setFilter(f)}
            >
              {f === 'all' ? 'All' : STATUS_LABELS[f]}
              <span className="jobs-filter-count">{counts[f] ?? 0}</span>
            </button>
          ))}
        </div>
        <label className="jobs-search">
          <Search size={14} aria-hidden="true" />
          <input
            type="search"
            placeholder="Search name or command"
            aria-label="Search jobs"
            data-testid="job-search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </label>
      </div>
      <div className="jobs-columns" aria-hidden="true">
        <span>Job</span>
        <span>Status</span>
        <span>Progress</span>
        <span>Attempt</span>
        <span>Time</span>
        <span />
      </div>
      <div className="jobs-scroll" ref={scroller} data-testid="jobs-scroll">
        {loaded && visible.length === 0 ? (
          <p className="jobs-empty">{sorted.length === 0 ? 'No jobs yet. Start a build, a test run or a long script with “New job”.' : 'No job matches.'}</p>
        ) : null}
        <div className="jobs-rows" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => (
            <div key={item.key} className="jobs-row-slot" style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}>
              <JobRow job={visible[item.index]!} onOpen={show} />
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
