import { ListChecks, Plug, Settings, ShieldQuestion, ShipWheel, SquarePen } from 'lucide-react';
import { openNewThread, useApprovalsStore, useJobsStore, useMcpStore, useSetupStore, useThreadsStore } from '../../services/services.js';
import { ConnectionIndicator } from '../connection/connection-indicator.js';
import { useLive } from '../connection/use-live.js';
import { ThreadList } from './thread-list.js';
import './sidebar.css';

/** Left column: brand, the New thread action, the thread list, the connection and Settings. */
export function Sidebar() {
  const creating = useThreadsStore((s) => s.creating);
  // Connected to a runtime that runs (the desktop app's may have failed to start).
  const connected = useLive();
  const openSettings = useSetupStore((s) => s.openSettings);
  const connectionsOpen = useMcpStore((s) => s.open);
  const setConnectionsOpen = useMcpStore((s) => s.setOpen);
  const failedServers = useMcpStore((s) => s.servers.filter((server) => server.runtimeStatus === 'failed').length);
  const jobsOpen = useJobsStore((s) => s.open);
  const showJobs = useJobsStore((s) => s.show);
  const runningJobs = useJobsStore((s) => {
    let n = 0;
    for (const job of s.jobs.values()) if (job.status === 'running') n += 1;
    return n;
  });
  // While Wheelhouse is away the last count is not news: the badge says it is not known.
  const live = connected;

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
          onClick={openNewThread}
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
          {runningJobs > 0 && live ? (
            <span className="sidebar-jobs-count" data-testid="jobs-badge" title={`${runningJobs} running`}>
              {runningJobs}
            </span>
          ) : runningJobs > 0 ? (
            <span className="sidebar-jobs-count" data-testid="jobs-badge" data-live="false" title="Not known while Wheelhouse is away">
              ?<span className="visually-hidden"> running: not known while Wheelhouse is away</span>
            </span>
          ) : null}
        </button>
        <ApprovalsButton />
      </div>
      <ThreadList />
      <footer className="sidebar-footer">
        <ConnectionIndicator />
        <button
          type="button"
          className="icon-button sidebar-connections"
          data-testid="open-connections"
          aria-label={failedServers > 0 ? `Connections (${failedServers} failed)` : 'Connections'}
          aria-pressed={connectionsOpen}
          title={failedServers > 0 ? `Connections: ${failedServers} MCP server(s) failed` : 'Connections'}
          onClick={() => setConnectionsOpen(!connectionsOpen)}
          disabled={!connected}
        >
          <Plug size={15} strokeWidth={1.9} aria-hidden="true" />
          {failedServers > 0 && <span className="sidebar-connections-badge" data-testid="connections-badge" />}
        </button>
        <button
          type="button"
          className="icon-button sidebar-settings"
          data-testid="open-settings"
          aria-label="Settings"
          title="Settings"
          onClick={() => openSettings()}
          disabled={!connected}
        >
          <Settings size={15} strokeWidth={1.9} aria-hidden="true" />
        </button>
      </footer>
    </aside>
  );
}

/** Opens the Approvals inbox; its badge counts the requests waiting in every thread and job. */
function ApprovalsButton() {
  const waiting = useApprovalsStore((s) => s.pending.length);
  const open = useApprovalsStore((s) => s.open);
  const show = useApprovalsStore((s) => s.show);
  const hide = useApprovalsStore((s) => s.hide);
  return (
    <button
      type="button"
      className="sidebar-new-thread sidebar-jobs"
      data-testid="open-approvals"
      aria-current={open ? 'page' : undefined}
      onClick={() => (open ? hide() : show())}
    >
      <ShieldQuestion size={15} strokeWidth={1.9} aria-hidden="true" />
      <span>Approvals</span>
      {waiting > 0 ? (
        <span className="sidebar-approvals" data-testid="approvals-badge" title={`${waiting} waiting for your approval`}>
          {waiting}
          <span className="visually-hidden"> waiting</span>
        </span>
      ) : null}
    </button>
  );
}
