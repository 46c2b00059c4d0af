import { ListChecks, Settings, ShipWheel, SquarePen } from 'lucide-react';
import { useConnectionStore, useJobsStore, useSetupStore, useThreadsStore } from '../../services.js';
import { ConnectionIndicator } from '../connection/connection-indicator.js';
import { ThreadList } from './thread-list.js';
import './sidebar.css';

/** Left column: brand, the New thread action, the thread list, the connection and Settings. */
export function Sidebar() {
  const creating = useThreadsStore((s) => s.creating);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const newThread = useThreadsStore((s) => s.newThread);
  const openSettings = useSetupStore((s) => s.openSettings);
  const jobsOpen = useJobsStore((s) => s.open);
  const showJobs = useJobsStore((s) => s.show);
  const activeJobs = useJobsStore((s) => {
    let n = 0;
    for (const job of s.jobs.values()) if (job.status === 'running') n += 1;
    return n;
  });

  return (
    <aside className="sidebar" aria-label="Threads">
      <header className="sidebar-brand">
        <span className="sidebar-logo" aria-hidden="true">
          <ShipWheel size={15} strokeWidth={2} />
        </span>
        <span className="sidebar-brand-name">Wheelhouse</span>
      </header>
      <div className="sidebar-actions">
        <button
          type="button"
          className="sidebar-new-thread"
          data-testid="new-thread"
          onClick={() => void newThread()}
          disabled={creating || !connected}
          title={connected ? undefined : 'Not connected to the runtime'}
        >
          <SquarePen size={15} strokeWidth={1.9} aria-hidden="true" />
          <span>New thread</span>
        </button>
        <button
          type="button"
          className="sidebar-new-thread sidebar-jobs"
          data-testid="open-jobs"
          aria-current={jobsOpen ? 'page' : undefined}
          onClick={() => showJobs(null)}
          disabled={!connected}
        >
          <ListChecks size={15} strokeWidth={1.9} aria-hidden="true" />
          <span>Jobs</span>
          {activeJobs > 0 ? <span className="sidebar-jobs-count" title={`${activeJobs} running`}>{activeJobs}</span> : null}
        </button>
      </div>
      <ThreadList />
      <footer className="sidebar-footer">
        <ConnectionIndicator />
        <button
          type="button"
          className="icon-button sidebar-settings"
          data-testid="open-settings"
          aria-label="Settings"
          title="Settings"
          onClick={openSettings}
          disabled={!connected}
        >
          <Settings size={15} strokeWidth={1.9} aria-hidden="true" />
        </button>
      </footer>
    </aside>
  );
}
