import { lazy, Suspense } from 'react';
import { useJobsStore, useSetupStore } from '../../services.js';
import { ConfirmDialog } from '../common/confirm-dialog.js';
import { ConversationPane } from '../conversation/conversation-pane.js';
import { ToastViewport } from '../toasts/toast-viewport.js';
import { Sidebar } from '../threads/sidebar.js';
import '../common/common.css';
import './app-shell.css';

/** The window layout: thread sidebar on the left, the selected thread on the right; setup, dialogs and toasts on top. */
export function AppShell() {
  return (
    <div className="app-shell">
      <Sidebar />
      <main className="app-main">
        <MainPane />
      </main>
      <SetupLayer />
      <ConfirmDialog />
      <ToastViewport />
    </div>
  );
}

// The Jobs dashboard (virtualised list, terminal) loads when first opened.
const JobsView = lazy(() => import('../jobs/jobs-view.js').then((module) => ({ default: module.JobsView })));

function MainPane() {
  const jobsOpen = useJobsStore((s) => s.open);
  if (!jobsOpen) return <ConversationPane />;
  return (
    <Suspense fallback={null}>
      <JobsView />
    </Suspense>
  );
}

// First run and Settings (with their folder browser and import) are a chunk of their own,
// loaded when first opened: most starts never show them.
const SetupScreen = lazy(() => import('../setup/setup-screen.js').then((module) => ({ default: module.SetupScreen })));

function SetupLayer() {
  const open = useSetupStore((s) => s.mode !== 'hidden');
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <SetupScreen />
    </Suspense>
  );
}
