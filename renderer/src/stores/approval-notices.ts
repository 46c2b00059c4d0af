import { approvalNotice, type Notice } from '../../../shared/notices.js';
import type { PendingApproval } from '../../../shared/protocol/index.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import type { PendingRequest } from './approval-requests.js';

/** The protocol's form of a request the approvals store holds (null for a request type without a notice of its own). */
export function pendingApprovalOf(request: PendingRequest): PendingApproval | null {
  switch (request.kind) {
    case 'command':
      return { requestId: request.requestId, method: 'item/commandExecution/requestApproval', params: request.params };
    case 'fileChange':
      return { requestId: request.requestId, method: 'item/fileChange/requestApproval', params: request.params };
    case 'mcpTool':
      return { requestId: request.requestId, method: 'mcpServer/elicitation/request', params: request.params, itemId: request.itemId };
    case 'other':
      return null;
    default:
      return request satisfies never;
  }
}

export interface ApprovalNoticeWatch {
  /** The requests waiting now, each time the list changes (the approvals store's `pending`). */
  readonly subscribe: (listener: (pending: readonly PendingRequest[]) => void) => () => void;
  readonly deliver: (notice: Notice) => void;
  /** A request told about stopped waiting (answered here or elsewhere, or its turn ended): its notice is no longer news. */
  readonly withdraw: (requestId: string) => void;
  /** The name of the thread a request comes from, when known. */
  readonly threadName: (threadId: string) => string | null;
}

/**
 * Turns requests that start waiting into approval notices, once each, and
 * withdraws a notice once its request stops waiting. After
 * every (re)connect the runtime sends again every request still waiting:
 * those are not news. The requests `approval/list` names right after the
 * connect are taken as already known; those arriving before its answer are
 * held until it comes, so none of them is announced again after a reload or
 * a reconnect.
 */
export function watchApprovalNotices(client: WheelhouseClient, watch: ApprovalNoticeWatch): () => void {
  const announced = new Set<string>();
  let known: ReadonlySet<string> | null = null;
  let held: PendingRequest[] = [];
  let previous = new Set<string>();

  const consider = (request: PendingRequest) => {
    if (known?.has(request.requestId) || announced.has(request.requestId)) return;
    announced.add(request.requestId);
    const pending = pendingApprovalOf(request);
    if (!pending) return;
    const name = request.threadId ? watch.threadName(request.threadId) : null;
    watch.deliver(approvalNotice(pending, name));
  };

  const offStatus = client.onStatus((snapshot) => {
    if (snapshot.status === 'connected') return;
    known = null;
    held = [];
  });
  // What the runtime sends again may arrive before or after this: either way it waits in `held` until the list is back.
  const offReady = client.onReady(() => {
    client.request('approval/list', {}).then(
      ({ data }) => {
        known = new Set(data.map((pending) => pending.requestId));
        for (const request of held.splice(0)) consider(request);
      },
      // Could not tell what was already waiting: say nothing about what arrived meanwhile.
      () => {
        known = new Set(held.splice(0).map((request) => request.requestId));
      },
    );
  });
  const offPending = watch.subscribe((pending) => {
    const now = new Set(pending.map((request) => request.requestId));
    // A dropped connection empties the list without answering anything: only a connected window's list says a request left.
    if (client.getSnapshot().status === 'connected') {
      for (const requestId of previous) if (!now.has(requestId) && announced.has(requestId)) watch.withdraw(requestId);
    }
    for (const request of pending) {
      if (previous.has(request.requestId)) continue;
      if (known === null) held.push(request);
      else consider(request);
    }
    previous = now;
  });
  return () => {
    offStatus();
    offReady();
    offPending();
  };
}
