import { Settings, ShieldQuestion, ShipWheel, SquarePen } from 'lucide-react';
import { useApprovalsStore, useConnectionStore, useSetupStore, useThreadsStore } from '../../services.js';
import { ConnectionIndicator } from '../connection/connection-indicator.js';
import { ThreadList } from './thread-list.js';
import './sidebar.css';

/** Left column: brand, the New thread action, the thread list, the connection and Settings. */
export function Sidebar() {
  const creating = useThreadsStore((s) => s.creating);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const newThread = useThreadsStore((s) => s.newThread);
  const openSettings = useSetupStore((s) => s.openSettings);

  return (
    <aside className="sidebar" aria-label="Threads">
      <header className="sidebar-brand">
        <span className="sidebar-logo" aria-hidden="true">
          <ShipWheel size={15} strokeWidth={2} />
        </span>
        <span className="sidebar-brand-name">Wheelhouse</span>
        <ApprovalsBadge />
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

/** How many requests wait for the person across all threads; opens the thread of the oldest. */
function ApprovalsBadge() {
  const pending = useApprovalsStore((s) => s.pending);
  const select = useThreadsStore((s) => s.select);
  if (pending.length === 0) return null;
  const oldest = pending.find((request) => request.threadId !== null);
  return (
    <button
      type="button"
      className="sidebar-approvals"
      data-testid="approvals-badge"
      title={`${pending.length} waiting for your approval`}
      onClick={() => oldest?.threadId && select(oldest.threadId)}
    >
      <ShieldQuestion size={13} strokeWidth={2} aria-hidden="true" />
      {pending.length}
      <span className="visually-hidden"> waiting for approval</span>
    </button>
  );
}
