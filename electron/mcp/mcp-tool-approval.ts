import {
  MCP_TOOL_APPROVAL_META,
  mcpToolApprovalRequestId,
  type McpServerElicitationRequestParams,
  type McpServerElicitationRequestResponse,
} from '../../shared/protocol/index.js';
import type { StateStore } from '../store/state-store.js';
import { mayAsk, needsApproval, type McpToolHints, type ThreadApprovalSettings } from './authorize-tool-call.js';
import { toolApprovalMode, type McpServerConfig } from '../config/mcp-config.js';

/** How an MCP tool-call approval ended: the person's answer (Codex's elicitation response), or the turn stopped first. */
export type McpApprovalOutcome = { readonly kind: 'answered'; readonly response: McpServerElicitationRequestResponse } | { readonly kind: 'ended' };

/** What the person is shown about the tool (from the server's listing). */
export interface McpToolFacts {
  readonly hints: McpToolHints | null;
  readonly title: string | null;
  readonly description: string | null;
}

export interface McpToolApprovalDeps {
  /** The server's settings and what it says of the tool; null when it is not configured. */
  readonly lookup: (server: string, tool: string) => { readonly config: McpServerConfig; readonly facts: McpToolFacts | null } | null;
  readonly settingsOf: (threadId: string) => Promise<ThreadApprovalSettings>;
  /** Waits for the person (the approval broker: persisted, every client, first answer wins). */
  readonly ask: (
    target: { readonly store: StateStore; readonly ephemeral: boolean },
    params: McpServerElicitationRequestParams & { readonly turnId: string },
    itemId: string,
    signal: AbortSignal,
  ) => Promise<McpApprovalOutcome>;
  /** "Always allow": `[mcp_servers.<server>.tools.<tool>] approval_mode = "approve"` in config.toml. */
  readonly trustForever: (server: string, tool: string) => void;
  readonly logError?: (message: string, error: unknown) => void;
}

/** The agent's call being decided. */
export interface McpCallUnderReview {
  readonly threadId: string;
  readonly turnId: string;
  readonly itemId: string;
  readonly store: StateStore;
  readonly ephemeral: boolean;
  readonly signal: AbortSignal;
  readonly server: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** PermissionRequest hooks: may decline before the person is asked (the text says why), and hear every answer. */
  readonly hooks?: {
    requested(requestId: string): Promise<string | null>;
    answered(requestId: string, decision: string): Promise<void>;
  };
}

export type McpApprovalVerdict = { readonly run: true } | { readonly run: false; readonly message: string };

/** What the model reads when the person says no (Codex's wording). */
export const DECLINED_MESSAGE = 'user rejected MCP tool call';
export const CANCELLED_MESSAGE = 'user cancelled MCP tool call';

/**
 * Decides whether an agent's MCP tool call runs, asking the person when the
 * tool's approval mode and annotations call for it (as Codex does). "Allow
 * for this session" trusts the tool in that thread until the app quits;
 * "always" writes the trust to config.toml. Only `auto` mode offers either
 * (in `prompt` and `writes` the person chose to be asked every time).
 */
export class McpToolApprovals {
  /** threadId → `server\0tool` trusted for the session. */
  private readonly sessionTrust = new Map<string, Set<string>>();

  constructor(private readonly deps: McpToolApprovalDeps) {}

  async review(call: McpCallUnderReview): Promise<McpApprovalVerdict> {
    const found = this.deps.lookup(call.server, call.tool);
    // Not configured or not ready: the call itself fails with why.
    if (!found) return { run: true };
    const settings = await this.deps.settingsOf(call.threadId);
    if (!needsApproval(found.config, call.tool, found.facts?.hints ?? null, settings)) return { run: true };
    const key = `${call.server}\u0000${call.tool}`;
    if (this.sessionTrust.get(call.threadId)?.has(key)) return { run: true };
    if (!mayAsk(settings.approvalPolicy)) {
      return { run: false, message: `this MCP tool call needs approval, and the thread's approval policy does not allow asking for it` };
    }
    const remembering = toolApprovalMode(found.config, call.tool) === 'auto';
    const requestId = mcpToolApprovalRequestId(call.itemId);
    const blocked = (await call.hooks?.requested(requestId)) ?? null;
    if (blocked) {
      await call.hooks?.answered(requestId, 'decline');
      return { run: false, message: blocked };
    }
    const verdict = await this.askPerson(call, found.facts, remembering);
    await call.hooks?.answered(requestId, verdict.decision);
    return verdict.run ? { run: true } : { run: false, message: verdict.message };
  }

  /** Asks, and applies a remembered choice; `decision` names the answer for the hooks. */
  private async askPerson(
    call: McpCallUnderReview,
    facts: McpToolFacts | null,
    remembering: boolean,
  ): Promise<{ run: true; decision: string } | { run: false; message: string; decision: string }> {
    const key = `${call.server}\u0000${call.tool}`;
    const outcome = await this.deps.ask(
      { store: call.store, ephemeral: call.ephemeral },
      {
        serverName: call.server,
        threadId: call.threadId,
        turnId: call.turnId,
        mode: 'form',
        message: `Allow the ${call.server} MCP server to run tool "${call.tool}"?`,
        requestedSchema: { type: 'object', properties: {} },
        _meta: approvalMeta(facts, call.args, remembering),
      },
      call.itemId,
      call.signal,
    );
    if (outcome.kind === 'ended') return { run: false, message: 'the turn stopped before the person answered', decision: 'ended' };
    const { response } = outcome;
    if (response.action === 'decline') return { run: false, message: DECLINED_MESSAGE, decision: 'decline' };
    if (response.action === 'cancel') return { run: false, message: CANCELLED_MESSAGE, decision: 'cancel' };
    const persist = remembering ? persistChoice(response._meta) : null;
    if (persist) this.trustForSession(call.threadId, key);
    if (persist === MCP_TOOL_APPROVAL_META.persistAlways) {
      try {
        this.deps.trustForever(call.server, call.tool);
      } catch (error) {
        // The call still runs (the person said yes); it is trusted for the session at least.
        this.deps.logError?.(`could not save "always allow" for ${call.server}/${call.tool}`, error);
      }
    }
    return { run: true, decision: persist === null ? 'accept' : persist === 'session' ? 'acceptForSession' : 'acceptAlways' };
  }

  private trustForSession(threadId: string, key: string): void {
    const keys = this.sessionTrust.get(threadId) ?? new Set<string>();
    keys.add(key);
    this.sessionTrust.set(threadId, keys);
  }
}

/** Codex's approval `_meta`: the kind, which remembered choices are offered, the tool and its arguments. */
function approvalMeta(facts: McpToolFacts | null, args: Record<string, unknown>, remembering: boolean): Record<string, unknown> {
  const meta: Record<string, unknown> = { [MCP_TOOL_APPROVAL_META.kindKey]: MCP_TOOL_APPROVAL_META.kindMcpToolCall };
  if (remembering) meta[MCP_TOOL_APPROVAL_META.persistKey] = [MCP_TOOL_APPROVAL_META.persistSession, MCP_TOOL_APPROVAL_META.persistAlways];
  if (facts?.title) meta[MCP_TOOL_APPROVAL_META.toolTitleKey] = facts.title;
  if (facts?.description) meta[MCP_TOOL_APPROVAL_META.toolDescriptionKey] = facts.description;
  meta[MCP_TOOL_APPROVAL_META.toolParamsKey] = args;
  return meta;
}

function persistChoice(meta: unknown): 'session' | 'always' | null {
  const value = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[MCP_TOOL_APPROVAL_META.persistKey] : undefined;
  return value === MCP_TOOL_APPROVAL_META.persistSession || value === MCP_TOOL_APPROVAL_META.persistAlways ? value : null;
}
