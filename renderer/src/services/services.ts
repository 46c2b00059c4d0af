import { jobNotice, type Notice } from '../../../shared/notices.js';
import { DEFAULT_NOTIFICATION_PREFERENCES, RpcError, type DesktopOpenTarget } from '../../../shared/protocol/index.js';
import { findBridge } from '../client/bridge-transport.js';
import { createWheelhouseClient } from '../client/create-client.js';
import { threadTitle } from '../format/thread-labels.js';
import { watchApprovalNotices } from '../stores/approval-notices.js';
import { createApprovalsStore } from '../stores/approvals-store.js';
import { createConnectionStore } from '../stores/connection-store.js';
import { createDesktopStore } from '../stores/desktop-store.js';
import { deliverNotice } from '../stores/notice-center.js';
import { createNotificationSettingsStore } from '../stores/notification-settings-store.js';
import { createConversationStore } from '../stores/conversation-store.js';
import { createElicitationStore } from '../stores/elicitation-store.js';
import { createGoalStore } from '../stores/goal-store.js';
import { createJobsStore } from '../stores/jobs-store.js';
import { createSchedulesStore } from '../stores/schedules-store.js';
import { createMcpStore } from '../stores/mcp-store.js';
import { createModelsStore } from '../stores/models-store.js';
import { createProjectsStore } from '../stores/projects-store.js';
import { createQueueStore } from '../stores/queue-store.js';
import { createMachinesStore } from '../stores/machines-store.js';
import { createRulesStore } from '../stores/rules-store.js';
import { createSandboxStore } from '../stores/sandbox-store.js';
import { createSetupStore } from '../stores/setup-store.js';
import { createThreadsStore } from '../stores/threads-store.js';
import { createTerminalStore } from '../stores/terminal-store.js';
import { setErrorActions, setExplainedElsewhere, useToastStore } from '../stores/toast-store.js';
import { showWebNotification } from '../stores/web-notifications.js';

/** The window's one runtime client; stores talk through it, views never do. */
export const client = createWheelhouseClient(window);

/** Where this window runs: inside the desktop app (its preload bridge is there) or in a browser. */
export const host: 'electron' | 'browser' = findBridge(window) ? 'electron' : 'browser';

/** Connection status for the footer indicator. */
export const useConnectionStore = createConnectionStore(client);

/** Threads for the sidebar and the conversation pane. */
export const useThreadsStore = createThreadsStore(client, window.sessionStorage, window.localStorage);

/** Projects (the folders threads work in), the Changes panel, separate copies. */
export const useProjectsStore = createProjectsStore(client);
client.onReady(() => void useProjectsStore.getState().refresh());

/** The open thread's conversation: items, turns, streaming, sending. */
export const useConversationStore = createConversationStore(client);

/** Thread goals and their budgets. */
export const useGoalStore = createGoalStore(client);

/** Each thread's queued turns, for the queue under the composer and the sidebar counts. */
export const useQueueStore = createQueueStore(client);

/** Model lists for the model picker. */
export const useModelsStore = createModelsStore(client);

/** Each thread's terminal panel and its shell. */
export const useTerminalStore = createTerminalStore(client, window.localStorage);

/** First run and Settings. */
export const useSetupStore = createSetupStore(client, window.localStorage);

/** Commands (and other requests) waiting for the person, across threads. */
export const useApprovalsStore = createApprovalsStore(client);
/** The exec-policy rules editor in Settings. */
export const useRulesStore = createRulesStore(client);
/** Settings → Machines and where jobs run (environment/*). */
export const useMachinesStore = createMachinesStore(client);

/** Each thread's sandbox mode and approval policy, for the conversation header. */
export const useSandboxStore = createSandboxStore(client);

/** MCP servers: the Connections page and the sidebar badge. */
export const useMcpStore = createMcpStore(client);

/** MCP servers' questions to the person (mcpServer/elicitation/request). */
export const useElicitationStore = createElicitationStore(client, (params, requestId) =>
  useApprovalsStore.getState().receiveMcpToolApproval(params, requestId),
);

// Choosing a thread shows its conversation again.
useThreadsStore.subscribe((state, previous) => {
  if (state.selectedId !== previous.selectedId) useMcpStore.getState().setOpen(false);
});

// The buttons error toasts offer (see describeRequestError).
setErrorActions({
  openSettings: { label: 'Open Settings', run: () => useSetupStore.getState().openSettings() },
  reconnect: { label: 'Reconnect now', run: () => client.retryNow() },
});

/** Long-running jobs and the Jobs dashboard; a job that finishes or fails for good is worth a notice. */
export const useJobsStore = createJobsStore(client, (before, after) => {
  const notice = jobNotice(before, after);
  if (notice) notify(notice);
});

/** Jobs on a clock: the Schedules tab beside Jobs. */
export const useSchedulesStore = createSchedulesStore(client);

/** The desktop app's own state (its runtime, open at login); what its menu, tray and notifications ask to show. */
export const useDesktopStore = createDesktopStore(client, host === 'electron', (target) => openTarget(target));

// The desktop app's runtime could not open: the banner says so once; each refused request need not say it again.
setExplainedElsewhere((error) => error instanceof RpcError && error.reason === 'runtime.unavailable');

/** Shows a place in the window: chosen from the application menu, the tray, a notification or a toast. */
export function openTarget(target: DesktopOpenTarget): void {
  const setup = useSetupStore.getState();
  if (target.view !== 'settings' && setup.mode === 'settings') setup.close();
  switch (target.view) {
    case 'newThread':
      openNewThread();
      return;
    case 'settings':
      setup.openSettings();
      return;
    case 'jobs':
      useJobsStore.getState().show(null);
      return;
    case 'job':
      useJobsStore.getState().show(target.jobId);
      return;
    case 'approvals':
      useApprovalsStore.getState().show();
      return;
    case 'thread':
      useThreadsStore.getState().select(target.threadId);
      useJobsStore.getState().hide();
      useApprovalsStore.getState().hide();
      useMcpStore.getState().setOpen(false);
      return;
    default:
      return target satisfies never;
  }
}

/** "New thread": asks which project, the open thread's (or the last used) first. */
export function openNewThread(): void {
  const threads = useThreadsStore.getState();
  const projects = useProjectsStore.getState();
  const selected = threads.selectedId;
  const folder = (selected ? (projects.projectOfThread[selected] ?? threads.threads[selected]?.cwd) : null) ?? threads.projectFolder ?? projects.projects[0]?.path ?? null;
  projects.openPicker(folder);
}

/** Settings → Notifications: saving a kind's switch, the browser's permission. */
export const useNotificationSettingsStore = createNotificationSettingsStore(client);

/** The toast each approval request was told with, so that it goes away once the request is answered. */
const approvalToasts = new Map<string, number>();

/** Tells the person about a notice: a toast, a browser notification, or nothing (see deliverNotice). */
function notify(notice: Notice): void {
  deliverNotice(notice, {
    host,
    preferences: () => useSetupStore.getState().config?.notifications ?? DEFAULT_NOTIFICATION_PREFERENCES,
    shown: () => {
      const jobs = useJobsStore.getState();
      const approvalsInbox = useApprovalsStore.getState().open;
      const elsewhere = jobs.open || approvalsInbox || useMcpStore.getState().open;
      return { threadId: elsewhere ? null : useThreadsStore.getState().selectedId, jobId: jobs.open ? jobs.selectedJobId : null, approvalsInbox };
    },
    focused: () => document.hasFocus(),
    toast: (told, open) => {
      const id = useToastStore.getState().show(told.kind === 'approvalNeeded' ? 'attention' : told.kind === 'jobFailed' ? 'error' : 'done', told.title, { label: 'Open', run: open }, told.body);
      if (told.approval) approvalToasts.set(told.approval.requestId, id);
    },
    desktop: (told, open) => void showWebNotification(told, open),
    open: (target) => openTarget(target),
  });
}

// A request that starts waiting for the person is worth a notice (once; not again after a reconnect).
watchApprovalNotices(client, {
  subscribe: (listener) =>
    useApprovalsStore.subscribe((state, previous) => {
      if (state.pending !== previous.pending) listener(state.pending);
    }),
  deliver: notify,
  withdraw: (requestId) => {
    const id = approvalToasts.get(requestId);
    approvalToasts.delete(requestId);
    if (id !== undefined) useToastStore.getState().dismiss(id);
  },
  threadName: (threadId) => {
    const thread = useThreadsStore.getState().threads[threadId];
    return thread ? threadTitle(thread) : null;
  },
});

// A new or other thread shows its conversation instead of the Jobs dashboard.
useThreadsStore.subscribe((state, previous) => {
  if (state.selectedId !== previous.selectedId) useJobsStore.getState().hide();
});

// The Jobs dashboard, the Connections page and the Approvals inbox share the main pane: opening one closes the others.
useJobsStore.subscribe((state, previous) => {
  if (state.open && !previous.open) {
    useMcpStore.getState().setOpen(false);
    useApprovalsStore.getState().hide();
  }
});
useMcpStore.subscribe((state, previous) => {
  if (state.open && !previous.open) {
    useJobsStore.getState().hide();
    useApprovalsStore.getState().hide();
  }
});
useApprovalsStore.subscribe((state, previous) => {
  if (state.open && !previous.open) {
    useJobsStore.getState().hide();
    useMcpStore.getState().setOpen(false);
  }
});
// Choosing a thread (also "Open thread" in the inbox) shows its conversation.
useThreadsStore.subscribe((state, previous) => {
  if (state.selectedId !== previous.selectedId) useApprovalsStore.getState().hide();
});
