import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { CommandExecutionApprovalDecision } from '../../../shared/protocol/command-execution.js';
import type { FileChangeApprovalDecision } from '../../../shared/protocol/file-change.js';
import type { ApprovalGrant } from '../../../shared/protocol/methods/approvals.js';
import type { McpServerElicitationRequestParams, McpServerElicitationRequestResponse } from '../../../shared/protocol/methods/mcp-elicitation.js';
import type { RequestId } from '../../../shared/protocol/wire.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import {
  batchResult,
  commandOriginOf,
  originOf,
  pruneSelection,
  requestSummaryText,
  selectRange,
  type BatchVerdict,
  type PendingRequest,
} from './approval-requests.js';
import { RpcError } from '../../../shared/protocol/errors.js';
import { describeRequestError } from '../format/request-errors.js';
import { showRequestError } from './toast-store.js';

export type { CommandApproval, FileChangeApproval, McpToolApproval, OtherRequest, PendingRequest } from './approval-requests.js';

/** Codex's request id of an MCP tool-call approval: this prefix, then the mcpToolCall item's id. */
const MCP_APPROVAL_PREFIX = 'mcp_tool_call_approval_';

/** A request that stopped waiting without an answer from this window. */
export interface ResolvedElsewhereNote {
  readonly requestId: string;
  readonly threadId: string | null;
  /** What it asked ("Run npm test"). */
  readonly summary: string;
}

/** How many notes the inbox keeps; older ones drop off. */
const MAX_NOTES = 5;

export interface ApprovalsState {
  /** Oldest first; its length is the badge count. A request stays here until its answer is accepted. */
  readonly pending: readonly PendingRequest[];
  /** Requests whose answer is on its way (their buttons wait). */
  readonly answering: ReadonlySet<string>;
  /** Why the last answer to a request did not go through, in words a person reads; it still waits. */
  readonly failures: Readonly<Record<string, string>>;
  answerCommand(requestId: string, decision: CommandExecutionApprovalDecision): void;
  answerFileChange(requestId: string, decision: FileChangeApprovalDecision): void;
  answerOther(requestId: string, accept: boolean): void;
  answerMcpTool(requestId: string, response: McpServerElicitationRequestResponse): void;
  /** Takes an MCP tool-call approval the elicitation handler received; resolves with the person's answer. */
  receiveMcpToolApproval(params: McpServerElicitationRequestParams, requestId: RequestId): Promise<McpServerElicitationRequestResponse>;
  /** Answers every named request still waiting; returns how many were still there to answer. */
  answerMany(requestIds: Iterable<string>, verdict: BatchVerdict): number;
  /** What "accept for session" would allow, per command request (from `approval/list`). */
  readonly sessionScopes: Readonly<Record<string, readonly (readonly string[])[]>>;

  /** The Approvals inbox shows in the main pane. */
  readonly open: boolean;
  show(): void;
  hide(): void;
  /** The inbox's checked rows and the row a shift-click ranges from. */
  readonly selected: ReadonlySet<string>;
  readonly anchor: string | null;
  /** Checks or unchecks a row; with `range`, every row from the anchor to it. */
  setSelected(requestId: string, on: boolean, range?: boolean): void;
  selectAll(on: boolean): void;
  /** Requests answered in another window (or whose turn stopped) while shown here. */
  readonly notes: readonly ResolvedElsewhereNote[];
  dismissNote(requestId: string): void;

  /** Each thread's "approve for this thread" grants, once loaded. */
  readonly grants: Readonly<Record<string, readonly ApprovalGrant[]>>;
  loadGrants(threadId: string): Promise<void>;
  /** Every thread's grants (for the inbox). */
  loadAllGrants(): Promise<void>;
  /** `kind` fileChange revokes the thread's "apply all patches" grant. */
  revokeGrant(threadId: string, prefix: readonly string[], kind?: ApprovalGrant['kind']): Promise<void>;
}

/**
 * Requests from the runtime that wait for the person: command and file change approvals (and
 * any request type this window does not know). Each is answered as the
 * server request it came as; when another window answers first, the
 * runtime's `serverRequest/resolved` takes it off the screen with a note.
 */
export function createApprovalsStore(client: WheelhouseClient, now: () => number = Date.now): UseBoundStore<StoreApi<ApprovalsState>> {
  const answers = new Map<string, (result: unknown) => void>();

  const store = create<ApprovalsState>()((set, get) => ({
    pending: [],
    answering: new Set(),
    failures: {},
    sessionScopes: {},
    open: false,
    // Notes are about what the person just saw: a reopened inbox starts without old ones.
    show: () => set({ open: true, notes: [] }),
    hide: () => set({ open: false, notes: [] }),
    selected: new Set(),
    anchor: null,
    setSelected: (requestId, on, range = false) => {
      const { pending, selected, anchor } = get();
      const order = pending.map((request) => request.requestId);
      set({ selected: selectRange(order, selected, range ? anchor : null, requestId, on), anchor: requestId });
    },
    selectAll: (on) => set((state) => ({ selected: new Set(on ? state.pending.map((request) => request.requestId) : []), anchor: null })),
    notes: [],
    dismissNote: (requestId) => set((state) => ({ notes: state.notes.filter((note) => note.requestId !== requestId) })),
    grants: {},
    answerCommand: (requestId, decision) => {
      // A new grant arrives as approval/grants/changed.
      settle(requestId, { decision });
    },
    answerFileChange: (requestId, decision) => settle(requestId, { decision }),
    answerOther: (requestId, accept) => settle(requestId, { decision: accept ? 'accept' : 'decline' }),
    answerMcpTool: (requestId, response) => settle(requestId, response),
    receiveMcpToolApproval: async (params, requestId) => {
      const id = String(requestId);
      const itemId = id.startsWith(MCP_APPROVAL_PREFIX) ? id.slice(MCP_APPROVAL_PREFIX.length) : id;
      const request = { kind: 'mcpTool', requestId: id, threadId: params.threadId, itemId, receivedAtMs: now(), params } as const;
      return (await add(request)) as McpServerElicitationRequestResponse;
    },
    answerMany: (requestIds, verdict) => {
      let answered = 0;
      for (const requestId of [...requestIds]) {
        const request = get().pending.find((known) => known.requestId === requestId);
        // Answered elsewhere meanwhile: its note says so; nothing to send.
        if (!request) continue;
        settle(requestId, batchResult(request, verdict));
        answered += 1;
      }
      return answered;
    },
    loadGrants: async (threadId) => {
      try {
        const { data } = await client.request('approval/grants/list', { threadId });
        set((state) => ({ grants: { ...state.grants, [threadId]: data } }));
      } catch {
        // Offline or an unknown thread: nothing granted to show.
      }
    },
    loadAllGrants: async () => {
      try {
        const { data } = await client.request('approval/grants/list', {});
        const byThread: Record<string, ApprovalGrant[]> = {};
        for (const threadId of Object.keys(get().grants)) byThread[threadId] = [];
        for (const grant of data) (byThread[grant.threadId] ??= []).push(grant);
        set({ grants: byThread });
      } catch {
        // Offline: the grants show once connected again.
      }
    },
    revokeGrant: async (threadId, prefix, kind) => {
      try {
        await client.request('approval/grants/revoke', { threadId, prefix: [...prefix], ...(kind ? { kind } : {}) });
      } catch (error) {
        showRequestError(error);
      }
    },
  }));

  /**
   * Answers by `approval/answer` (a request with its own reply, unlike the
   * answer to a server request, which nothing acknowledges), so the request
   * leaves the inbox only once the runtime took the answer. A failure keeps
   * it waiting with the reason shown; `approval.notWaiting` means nothing is
   * waiting any more (answered elsewhere, or its turn ended), so it goes.
   * Requests of kinds `approval/answer` does not speak go back on their own channel.
   */
  function settle(requestId: string, result: unknown): void {
    const request = store.getState().pending.find((known) => known.requestId === requestId);
    if (!request || store.getState().answering.has(requestId)) return;
    const params = approvalAnswerOf(request, result);
    if (params === null) {
      const answer = answers.get(requestId);
      answers.delete(requestId);
      remove(requestId);
      answer?.(result);
      return;
    }
    store.setState((state) => ({ answering: new Set(state.answering).add(requestId), failures: without(state.failures, requestId) }));
    client.request('approval/answer', { requestId, ...params }).then(
      () => {
        answers.delete(requestId);
        remove(requestId);
      },
      (error: unknown) => {
        if (error instanceof RpcError && error.reason === 'approval.notWaiting') {
          answers.delete(requestId);
          remove(requestId);
          return;
        }
        store.setState((state) => ({
          answering: withoutId(state.answering, requestId),
          failures: { ...state.failures, [requestId]: describeRequestError(error).message },
        }));
      },
    );
  }

  function remove(requestId: string): void {
    store.setState((state) => {
      const pending = state.pending.filter((request) => request.requestId !== requestId);
      return {
        pending,
        selected: pruneSelection(state.selected, pending),
        anchor: state.anchor === requestId ? null : state.anchor,
        answering: withoutId(state.answering, requestId),
        failures: without(state.failures, requestId),
      };
    });
  }

  /** Adds a request (again after a reconnect: the newest answer channel replaces the old one). */
  function add(request: PendingRequest): Promise<unknown> {
    return new Promise((resolve) => {
      answers.set(request.requestId, resolve);
      store.setState((state) =>
        state.pending.some((known) => known.requestId === request.requestId) ? state : { pending: [...state.pending, request] },
      );
      if (request.kind === 'command') refreshScopes();
    });
  }

  /** approval/list says what each command's "approve for this thread" covers; one refresh for a burst of requests. */
  let refreshing: Promise<void> | null = null;
  let again = false;
  function refreshScopes(): void {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = (async () => {
      do {
        again = false;
        try {
          const { data } = await client.request('approval/list', {});
          const scopes: Record<string, readonly (readonly string[])[]> = {};
          for (const pending of data) if ('sessionPrefixes' in pending && pending.sessionPrefixes) scopes[pending.requestId] = pending.sessionPrefixes;
          store.setState({ sessionScopes: scopes });
        } catch {
          // Offline: the scope falls back to the command itself.
        }
      } while (again);
      refreshing = null;
    })();
  }

  client.handle('item/commandExecution/requestApproval', async (params, { requestId }) => {
    const request = { kind: 'command', requestId: String(requestId), ...commandOriginOf(params), receivedAtMs: params.startedAtMs, params } as const;
    return (await add(request)) as { decision: CommandExecutionApprovalDecision };
  });
  client.handle('item/fileChange/requestApproval', async (params, { requestId }) => {
    const request = { kind: 'fileChange', requestId: String(requestId), threadId: params.threadId, receivedAtMs: params.startedAtMs, params } as const;
    return (await add(request)) as { decision: FileChangeApprovalDecision };
  });
  client.handleOthers(({ method, params, requestId }) => {
    const { threadId, jobId } = originOf(params);
    return add({ kind: 'other', requestId: String(requestId), threadId, jobId, receivedAtMs: now(), method, params });
  });
  client.on('approval/grants/changed', ({ threadId, grants }) => {
    store.setState((state) => ({ grants: { ...state.grants, [threadId]: grants } }));
  });
  client.on('serverRequest/resolved', ({ requestId }) => {
    const id = String(requestId);
    const request = store.getState().pending.find((known) => known.requestId === id);
    const answeredHere = store.getState().answering.has(id);
    answers.delete(id);
    remove(id);
    // Still shown here and not being answered here: another window answered first, or its turn stopped.
    if (request && !answeredHere) {
      const note = { requestId: id, threadId: request.threadId, summary: requestSummaryText(request) };
      store.setState((state) => ({ notes: [...state.notes, note].slice(-MAX_NOTES) }));
    }
  });
  // A reconnect gets every waiting request again; those answered meanwhile are gone.
  client.onStatus((snapshot) => {
    if (snapshot.status !== 'connected') {
      answers.clear();
      store.setState({ pending: [], selected: new Set(), anchor: null, answering: new Set(), failures: {} });
    }
  });

  return store;
}

/** What `approval/answer` takes for this request and result (less its id); null for kinds it does not speak. */
function approvalAnswerOf(
  request: PendingRequest,
  result: unknown,
): { readonly decision: CommandExecutionApprovalDecision } | { readonly response: McpServerElicitationRequestResponse } | null {
  switch (request.kind) {
    case 'command':
    case 'fileChange':
      return { decision: (result as { decision: CommandExecutionApprovalDecision }).decision };
    case 'mcpTool':
      // The elicitation answer verbatim: its `_meta.persist` ("session", "always") is what a decision cannot say.
      return { response: result as McpServerElicitationRequestResponse };
    case 'other':
      return null;
    default: {
      const unknown: never = request;
      return unknown;
    }
  }
}

function without(failures: Readonly<Record<string, string>>, requestId: string): Readonly<Record<string, string>> {
  if (!(requestId in failures)) return failures;
  const { [requestId]: _dropped, ...rest } = failures;
  return rest;
}

function withoutId(ids: ReadonlySet<string>, requestId: string): ReadonlySet<string> {
  if (!ids.has(requestId)) return ids;
  const next = new Set(ids);
  next.delete(requestId);
  return next;
}
