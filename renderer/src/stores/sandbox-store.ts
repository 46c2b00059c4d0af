import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ThreadSandboxState } from '../../../shared/protocol/methods/thread-sandbox.js';
import type { AskForApproval, SandboxMode } from '../../../shared/protocol/thread.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

export interface SandboxState {
  /** Each thread's sandbox mode and approval policy in effect, once read. */
  readonly byThread: Readonly<Record<string, ThreadSandboxState>>;
  load(threadId: string): Promise<void>;
  /** Asks the runtime to change them (it validates: no sandbox mode where the machine has no sandbox). */
  change(threadId: string, change: { sandbox?: SandboxMode; approvalPolicy?: AskForApproval }): Promise<void>;
}

const POLICY_OF_MODE = {
  'read-only': { type: 'readOnly' },
  'workspace-write': { type: 'workspaceWrite' },
  'danger-full-access': { type: 'dangerFullAccess' },
} as const;

/** The conversation header's sandbox state, kept current by thread/sandbox/changed (from any window). */
export function createSandboxStore(client: WheelhouseClient): UseBoundStore<StoreApi<SandboxState>> {
  const store = create<SandboxState>()((set) => ({
    byThread: {},
    load: async (threadId) => {
      try {
        const state = await client.request('thread/sandbox/read', { threadId });
        set((current) => ({ byThread: { ...current.byThread, [threadId]: state } }));
      } catch {
        // Offline: read again when the thread is shown next.
      }
    },
    change: async (threadId, change) => {
      try {
        await client.request('thread/settings/update', {
          threadId,
          ...(change.sandbox ? { sandboxPolicy: POLICY_OF_MODE[change.sandbox] } : {}),
          ...(change.approvalPolicy ? { approvalPolicy: change.approvalPolicy } : {}),
        });
      } catch (error) {
        showRequestError(error);
      }
    },
  }));
  client.on('thread/sandbox/changed', (state) => {
    store.setState((current) => ({ byThread: { ...current.byThread, [state.threadId]: state } }));
  });
  return store;
}
