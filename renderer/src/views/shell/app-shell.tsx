import { useConnectionStore } from '../../services.js';
import { AccessGate } from '../access/access-gate.js';
import { ConfirmDialog } from '../common/confirm-dialog.js';
import { ConversationPane } from '../conversation/conversation-pane.js';
import { SetupScreen } from '../setup/setup-screen.js';
import { ToastViewport } from '../toasts/toast-viewport.js';
import { Sidebar } from '../threads/sidebar.js';
import '../common/common.css';
import './app-shell.css';

/** The window layout: thread sidebar on the left, the selected thread on the right; setup, dialogs and toasts on top. */
export function AppShell() {
  // Without a usable token nothing else can work; the page is only the guidance.
  const accessProblem = useConnectionStore((s) => s.problem);
  if (accessProblem !== null) return <AccessGate />;
  return (
    <div className="app-shell">
      <Sidebar />
      <main className="app-main">
        <ConversationPane />
      </main>
      <SetupScreen />
      <ConfirmDialog />
      <ToastViewport />
    </div>
  );
}
