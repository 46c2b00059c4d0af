import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { isMcpToolApproval } from '../../../shared/protocol/methods/approvals.js';
import type { McpServerElicitationRequestParams, McpServerElicitationRequestResponse } from '../../../shared/protocol/methods/mcp-elicitation.js';
import type { RequestId } from '../../../shared/protocol/wire.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';

/** One MCP server question waiting for the person, with the way to answer it. */
export interface PendingElicitation {
  readonly requestId: RequestId;
  readonly params: McpServerElicitationRequestParams;
  answer(response: McpServerElicitationRequestResponse): void;
}

export interface ElicitationState {
  /** Oldest first; the dialog shows the first. */
  readonly pending: readonly PendingElicitation[];
}

/**
 * MCP elicitations sent to this window. A question leaves the list when this
 * window answers it, or when `serverRequest/resolved` says another client
 * answered first (or it timed out); a lost connection drops them all (the
 * runtime no longer waits for this window's answer).
 */
export function createElicitationStore(
  client: WheelhouseClient,
  /** Codex sends an agent's MCP tool-call approval as an elicitation too; it is an approval card, not this dialog. */
  toolApproval: (params: McpServerElicitationRequestParams, requestId: RequestId) => Promise<McpServerElicitationRequestResponse>,
): UseBoundStore<StoreApi<ElicitationState>> {
  const store = create<ElicitationState>()(() => ({ pending: [] }));
  const drop = (requestId: RequestId) => store.setState((s) => ({ pending: s.pending.filter((p) => p.requestId !== requestId) }));
  client.handle('mcpServer/elicitation/request', (params, { requestId }) => {
    if (isMcpToolApproval(params)) return toolApproval(params, requestId);
    return new Promise<McpServerElicitationRequestResponse>((resolve) => {
      const entry: PendingElicitation = {
        requestId,
        params,
        answer: (response) => {
          drop(requestId);
          resolve(response);
        },
      };
      store.setState((s) => ({ pending: [...s.pending.filter((p) => p.requestId !== requestId), entry] }));
    });
  });
  client.on('serverRequest/resolved', (params) => drop(params.requestId));
  client.onStatus((snapshot) => {
    if (snapshot.status !== 'connected') store.setState({ pending: [] });
  });
  return store;
}
