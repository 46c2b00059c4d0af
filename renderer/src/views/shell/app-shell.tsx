import { useApprovalsStore, useConnectionStore, useElicitationStore, useJobsStore, useMcpStore, useProjectsStore, useSetupStore } from '../../services.js';
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
  const modal = setupOpen || confirmOpen || elicitationOpen || projectDialogOpen;
  // While Wheelhouse is away, what shows is only what was last known: the banner says so, badges and spinners stop claiming it.
  const live = useLive();
  if (accessProblem !== null) return <AccessGate />;
  return (
    <div className="app-shell" data-live={live}>
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
    </div>
  );
}

// First run and Settings (with their folder browser and import) are a chunk of their own,
// loaded when first opened: most starts never show them.
const SetupScreen = lazyView(() => import('../setup/setup-screen.js').then((module) => module.SetupScreen), {
  label: 'Settings',
  overlay: true,
});

// The Connections page is a chunk too: opened from the sidebar, not at start.
const ConnectionsPage = lazyView(() => import('../connections/connections-page.js').then((module) => module.ConnectionsPage), {
  label: 'Connections',
});

// The Jobs dashboard (virtualised list, terminal) loads when first opened.
const JobsView = lazyView(() => import('../jobs/jobs-view.js').then((module) => module.JobsView), { label: 'Jobs' });

// The Approvals inbox loads when first opened.
const ApprovalsInbox = lazyView(() => import('../approvals/approvals-inbox.js').then((module) => module.ApprovalsInbox), { label: 'Approvals' });

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
