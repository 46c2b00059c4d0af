import { createWheelhouseClient } from './client/create-client.js';
import { createApprovalsStore } from './stores/approvals-store.js';
import { createConnectionStore } from './stores/connection-store.js';
import { createConversationStore } from './stores/conversation-store.js';
import { createElicitationStore } from './stores/elicitation-store.js';
import { createGoalStore } from './stores/goal-store.js';
import { notifyJobEnded, notifyJobWaiting } from './stores/job-notifications.js';
import { createJobsStore } from './stores/jobs-store.js';
import { createMcpStore } from './stores/mcp-store.js';
import { createModelsStore } from './stores/models-store.js';
import { createQueueStore } from './stores/queue-store.js';
import { createRulesStore } from './stores/rules-store.js';
import { createSandboxStore } from './stores/sandbox-store.js';
import { createSetupStore } from './stores/setup-store.js';
import { createThreadsStore } from './stores/threads-store.js';
import { createTerminalStore } from './stores/terminal-store.js';
import { setErrorActions } from './stores/toast-store.js';

/** The window's one runtime client; stores talk through it, views never do. */
export const client = createWheelhouseClient(window);

/** Connection status for the footer indicator. */
export const useConnectionStore = createConnectionStore(client);

/** Threads for the sidebar and the conversation pane. */
export const useThreadsStore = createThreadsStore(client, window.sessionStorage, window.localStorage);

/** The open thread's conversation: items, turns, streaming, sending. */
export const useConversationStore = createConversationStore(client);

/** Thread goals and their budgets. */
export const useGoalStore = createGoalStore(client);

/** Each thread's queued turns, for the queue under the composer and the sidebar counts. */
export const useQueueStore = createQueueStore(client);

/** Model lists for the model picker. */
export const useModelsStore = createModelsStore(client);

/** Each thread's terminal panel and its shell. */
export const useTerminalStore = createTerminalStore(client);

/** First run and Settings. */
export const useSetupStore = createSetupStore(client, window.localStorage);

/** Commands (and other requests) waiting for the person, across threads. */
export const useApprovalsStore = createApprovalsStore(client);
/** The exec-policy rules editor in Settings. */
export const useRulesStore = createRulesStore(client);

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

/** Long-running jobs and the Jobs dashboard; a job that ends (or waits for approval) notifies the desktop, and the click opens it. */
export const useJobsStore = createJobsStore(
  client,
  (job) => notifyJobEnded(job, (jobId) => useJobsStore.getState().show(jobId)),
  undefined,
  // An agent job waiting for approval: the click opens its conversation, where the approval card is.
  (job) =>
    notifyJobWaiting(job, (threadId) => {
      useThreadsStore.getState().select(threadId);
      useJobsStore.getState().hide();
    }),
);

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
