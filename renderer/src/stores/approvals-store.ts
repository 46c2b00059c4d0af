import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { CommandExecutionApprovalDecision } from '../../../shared/protocol/command-execution.js';
import type { ApprovalGrant, CommandExecutionRequestApprovalParams } from '../../../shared/protocol/methods/approvals.js';
import type { McpServerElicitationRequestParams, McpServerElicitationRequestResponse } from '../../../shared/protocol/methods/mcp-elicitation.js';
import type { RequestId } from '../../../shared/protocol/wire.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { showRequestError } from './toast-store.js';

/** A command the agent wants to run, waiting for the person. */
export interface CommandApproval {
  readonly kind: 'command';
  readonly requestId: string;
  readonly threadId: string;
  readonly params: CommandExecutionRequestApprovalParams;
}

/** A server request this window has no special view for: shown raw, with accept / decline. */
export interface OtherRequest {
  readonly kind: 'other';
  readonly requestId: string;
  readonly threadId: string | null;
  readonly method: string;
  readonly params: unknown;
}

/** An agent's MCP tool call waiting for the person (Codex's approval-kind `mcpServer/elicitation/request`). */
export interface McpToolApproval {
  readonly kind: 'mcpTool';
  readonly requestId: string;
  readonly threadId: string;
  /** The mcpToolCall item it belongs to (Codex's request id is `mcp_tool_call_approval_<item id>`). */
  readonly itemId: string;
  readonly params: McpServerElicitationRequestParams;
}

export type PendingRequest = CommandApproval | McpToolApproval | OtherRequest;

const MCP_APPROVAL_PREFIX = 'mcp_tool_call_approval_';

export interface ApprovalsState {
  /** Oldest first. */
  readonly pending: readonly PendingRequest[];
  answerCommand(requestId: string, decision: CommandExecutionApprovalDecision): void;
  answerOther(requestId: string, accept: boolean): void;
  answerMcpTool(requestId: string, response: McpServerElicitationRequestResponse): void;
  /** Takes an MCP tool-call approval the elicitation handler received; resolves with the person's answer. */
  receiveMcpToolApproval(params: McpServerElicitationRequestParams, requestId: RequestId): Promise<McpServerElicitationRequestResponse>;
  /** Each thread's "approve for this thread" grants, once loaded. */
  readonly grants: Readonly<Record<string, readonly ApprovalGrant[]>>;
  loadGrants(threadId: string): Promise<void>;
  revokeGrant(threadId: string, prefix: readonly string[]): Promise<void>;
}

/**
 * Requests from the runtime that wait for the person: command approvals (and
 * any request type this window does not know). Each is answered as the
 * server request it came as; when another window answers first, the
 * runtime's `serverRequest/resolved` takes it off the screen.
 */
export function createApprovalsStore(client: WheelhouseClient): UseBoundStore<StoreApi<ApprovalsState>> {
  const answers = new Map<string, (result: unknown) => void>();

  const store = create<ApprovalsState>()((set, get) => ({
    pending: [],
    grants: {},
    answerCommand: (requestId, decision) => {
      // A new grant arrives as approval/grants/changed.
      settle(requestId, { decision });
    },
    answerOther: (requestId, accept) => settle(requestId, { decision: accept ? 'accept' : 'decline' }),
    answerMcpTool: (requestId, response) => settle(requestId, response),
    receiveMcpToolApproval: async (params, requestId) => {
      const id = String(requestId);
      const itemId = id.startsWith(MCP_APPROVAL_PREFIX) ? id.slice(MCP_APPROVAL_PREFIX.length) : id;
      return (await add({ kind: 'mcpTool', requestId: id, threadId: params.threadId, itemId, params })) as McpServerElicitationRequestResponse;
    },
    loadGrants: async (threadId) => {
      try {
        const { data } = await client.request('approval/grants/list', { threadId });
        set((state) => ({ grants: { ...state.grants, [threadId]: data } }));
      } catch {
        // Offline or an unknown thread: nothing granted to show.
      }
    },
    revokeGrant: async (threadId, prefix) => {
      try {
        await client.request('approval/grants/revoke', { threadId, prefix: [...prefix] });
      } catch (error) {
        showRequestError(error);
      }
    },
  }));

  function settle(requestId: string, result: unknown): void {
    const answer = answers.get(requestId);
    answers.delete(requestId);
    remove(requestId);
    answer?.(result);
  }

  function remove(requestId: string): void {
    store.setState((state) => ({ pending: state.pending.filter((request) => request.requestId !== requestId) }));
  }

  /** Adds a request (again after a reconnect: the newest answer channel replaces the old one). */
  function add(request: PendingRequest): Promise<unknown> {
    return new Promise((resolve) => {
      answers.set(request.requestId, resolve);
      store.setState((state) =>
        state.pending.some((known) => known.requestId === request.requestId) ? state : { pending: [...state.pending, request] },
      );
    });
  }

  client.handle('item/commandExecution/requestApproval', async (params, { requestId }) => {
    const answer = (await add({ kind: 'command', requestId: String(requestId), threadId: params.threadId, params })) as {
      decision: CommandExecutionApprovalDecision;
    };
    return answer;
  });
  client.handleOthers(({ method, params, requestId }) => {
    const threadId = typeof params === 'object' && params !== null && typeof (params as { threadId?: unknown }).threadId === 'string'
      ? (params as { threadId: string }).threadId
      : null;
    return add({ kind: 'other', requestId: String(requestId), threadId, method, params });
  });
  client.on('approval/grants/changed', ({ threadId, grants }) => {
    store.setState((state) => ({ grants: { ...state.grants, [threadId]: grants } }));
  });
  client.on('serverRequest/resolved', ({ requestId }) => {
    answers.delete(String(requestId));
    remove(String(requestId));
  });
  // A reconnect gets every waiting request again; those answered meanwhile are gone.
  client.onStatus((snapshot) => {
    if (snapshot.status !== 'connected') {
      answers.clear();
      store.setState({ pending: [] });
    }
  });

  return store;
}
