import { useApprovalsStore, useConnectionStore, useElicitationStore, useJobsStore, useMcpStore, useProjectsStore, useSetupStore } from '../../services/services.js';
import { useConfirmStore } from '../../stores/confirm-store.js';
import { AccessGate } from '../access/access-gate.js';
import { ConfirmDialog } from '../common/confirm-dialog.js';
import { ConnectionBanner } from '../connection/connection-banner.js';
import { useLive } from '../connection/use-live.js';
import { ElicitationDialog } from '../common/elicitation-dialog.js';
import { lazyView } from '../common/lazy-view.js';
import { ConversationPane } from '../conversation/conversation-pane.js';
import { ToastViewport } from '../toasts/toast-viewport.js';
import { Sidebar } from '../threads/sidebar.js';
import { NewThreadDialog } from '../projects/new-thread-dialog.js';
import { ProjectPanel } from '../projects/project-panel.js';
import { droppedPath } from '../../client/bridge-transport.js';
import { useToastStore } from '../../stores/toast-store.js';
import { useState, type DragEvent } from 'react';
import '../common/common.css';
import './app-shell.css';

/** The window layout: thread sidebar on the left, the selected thread on the right; setup, dialogs and toasts on top. */
export function AppShell() {
  // Without a usable token nothing else can work; the page is only the guidance.
  const accessProblem = useConnectionStore((s) => s.problem);
  // While a modal dialog is up, the window behind it can be neither reached by Tab nor read by a screen reader.
  const setupOpen = useSetupStore((s) => s.mode !== 'hidden');
  const confirmOpen = useConfirmStore((s) => s.request !== null);
  const elicitationOpen = useElicitationStore((s) => s.pending.length > 0);
  const projectDialogOpen = useProjectsStore((s) => s.picker !== null || s.openProject !== null);
  const openPicker = useProjectsStore((s) => s.openPicker);
  const openDropped = useProjectsStore((s) => s.openDropped);
  const modal = setupOpen || confirmOpen || elicitationOpen || projectDialogOpen;
  const [dropping, setDropping] = useState(false);
  // A folder dragged onto the window opens as a project (New thread asks with it chosen).
  const carriesFiles = (e: DragEvent) => !modal && e.dataTransfer.types.includes('Files');
  // While Wheelhouse is away, what shows is only what was last known: the banner says so, badges and spinners stop claiming it.
  const live = useLive();
  if (accessProblem !== null) return <AccessGate />;
  return (
    <div
      className="app-shell"
      data-live={live}
      onDragOver={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setDropping(true);
      }}
      onDragLeave={(e) => {
        if (e.relatedTarget === null) setDropping(false);
      }}
      onDrop={(e) => {
        setDropping(false);
        if (!carriesFiles(e)) return;
        e.preventDefault();
        const file = e.dataTransfer.files[0];
        const folder = file ? droppedPath(window, file) : null;
        if (folder) void openDropped(folder);
        else useToastStore.getState().show('notice', 'A dropped folder opens as a project in the desktop app. Here, use New thread → Choose a folder….');
      }}
    >
      <div className="app-shell-background" inert={modal}>
        <ConnectionBanner />
        <Sidebar />
        <main className="app-main">
          <MainView />
        </main>
      </div>
      <SetupLayer />
      <NewThreadDialog />
      <ProjectPanel onNewThread={(folder) => openPicker(folder)} />
      <ConfirmDialog />
      <ElicitationDialog />
      <ToastViewport />
      {dropping && (
        <div className="app-drop-target" data-testid="drop-target" aria-hidden="true">
          <p>Drop a folder to open it as a project</p>
        </div>
      )}
    </div>
  );
}

// First run and Settings (with their folder browser and import) are a chunk of their own,
// loaded when first opened: most starts never show them.
const SetupScreen = lazyView(() => import('../setup/setup-screen.js'), 'SetupScreen', {
  label: 'Settings',
  overlay: true,
});

// The Connections page is a chunk too: opened from the sidebar, not at start.
const ConnectionsPage = lazyView(() => import('../connections/connections-page.js'), 'ConnectionsPage', {
  label: 'Connections',
});

// The Jobs dashboard (virtualised list, terminal) loads when first opened.
const JobsView = lazyView(() => import('../jobs/jobs-view.js'), 'JobsView', { label: 'Jobs' });

// The Approvals inbox loads when first opened.
const ApprovalsInbox = lazyView(() => import('../approvals/approvals-inbox.js'), 'ApprovalsInbox', { label: 'Approvals' });

function MainView() {
  const connections = useMcpStore((s) => s.open);
  const jobs = useJobsStore((s) => s.open);
  const approvals = useApprovalsStore((s) => s.open);
  if (!connections && !jobs && !approvals) return <ConversationPane />;
  return connections ? <ConnectionsPage /> : jobs ? <JobsView /> : <ApprovalsInbox />;
}

function SetupLayer() {
  const open = useSetupStore((s) => s.mode !== 'hidden');
  if (!open) return null;
  return <SetupScreen />;
}
