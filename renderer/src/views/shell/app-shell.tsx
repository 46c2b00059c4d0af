import { ConversationPane } from '../conversation/conversation-pane.js';
import { ToastViewport } from '../toasts/toast-viewport.js';
import { Sidebar } from '../threads/sidebar.js';
import './app-shell.css';

/** The window layout: thread sidebar on the left, the selected thread on the right, toasts on top. */
export function AppShell() {
  return (
    <div className="app-shell">
      <Sidebar />
      <main className="app-main">
        <ConversationPane />
      </main>
      <ToastViewport />
    </div>
  );
}
