import {
  RpcError,
  type ApprovalGrant,
  type CommandExecutionApprovalDecision,
  type CommandExecutionRequestApprovalParams,
  type FileChangeRequestApprovalParams,
  type McpServerElicitationRequestParams,
  type McpServerElicitationRequestResponse,
  type PendingApproval,
  FileChangeApprovalDecision,
  MCP_TOOL_APPROVAL_META,
  mcpToolApprovalRequestId,
} from '../../../shared/protocol/index.js';
import type { McpApprovalOutcome } from '../../mcp/mcp-tool-approval.js';
import type { StateStore } from '../../store/state-store.js';
import type { EventLog } from '../event-log.js';
import type { OutgoingSender } from '../outgoing/outgoing-sender.js';
import { approvalRequestedOf } from './approval-announcement.js';


/** How a wait for the person ended: their decision, or the turn stopped first. */
export type ApprovalOutcome = { readonly kind: 'decided'; readonly decision: CommandExecutionApprovalDecision } | { readonly kind: 'ended' };

/** A client's answer, as the result of the server request it got (already checked against that request's schema). */
export type ApprovalResponse = { readonly decision: CommandExecutionApprovalDecision } | McpServerElicitationRequestResponse;

/**
 * Watches approvals as they start waiting (the desktop shell's notices, an
 * agent job's policy): `withdrawn` aborts once the approval is settled.
 */
export type ApprovalWatcher = (pending: PendingApproval, withdrawn: AbortSignal) => void;

interface LiveApproval {
  readonly pending: PendingApproval;
  readonly ephemeral: boolean;
  /** Where the request is recorded; null when its owner keeps the record (a job asks again after a restart). */
  readonly store: StateStore | null;
  readonly withdrawn: AbortController;
  /** What "accept for session" grants: granted with the answer, so the grant is there before anyone can ask. */
  readonly sessionPrefixes: readonly (readonly string[])[];
  /** Sent to clients yet: only once the notifications published before it (its item/started) have gone out. */
  offered: boolean;
  /** null: ended unanswered. */
  settle(response: ApprovalResponse | null): void;
}

export interface ApprovalBrokerDeps {
  readonly events: EventLog;
  /** Sends each approval to every client that can answer it (and replays it to one that connects later). */
  readonly outgoing: Pick<OutgoingSender, 'request'>;
  readonly now: () => number;
  /** A thread's approval began or stopped waiting (its status's `waitingOnApproval` flag). */
  readonly waitingChanged?: (threadId: string, waiting: boolean, scope: { readonly turnId: string | null; readonly ephemeral: boolean }) => void;
}

/** Ended approvals of an earlier run record this instead of a decision. */
export const ENDED_BY_RESTART = 'ended: Wheelhouse stopped while this approval waited';

/**
 * Approvals waiting for the person: persisted, announced in the log
 * (`approval.requested`), sent through the OutgoingSender to every connected
 * client (and again to a client that connects later), settled by the first
 * answer; the rest get `serverRequest/resolved`. Also keeps the thread's
 * "accept for session" grants (in memory: they end with the app, as Codex's).
 */
export class ApprovalBroker {
  private readonly live = new Map<string, LiveApproval>();
  private readonly watchers = new Set<ApprovalWatcher>();
  private readonly grants = new Map<string, ApprovalGrant[]>();
  /** Per thread: the folder its patches may change without asking (a fileChange acceptForSession). */
  private readonly fileGrants = new Map<string, ApprovalGrant>();

  constructor(private readonly deps: ApprovalBrokerDeps) {}

  /** Calls `watcher` with every approval that waits, those already waiting first. Returns its removal. */
  watch(watcher: ApprovalWatcher): () => void {
    this.watchers.add(watcher);
    for (const live of this.live.values()) if (live.offered) watcher(live.pending, live.withdrawn.signal);
    return () => this.watchers.delete(watcher);
  }

  /** At start: approvals of an earlier run cannot be answered any more (their turns ended). */
  endLeftovers(store: StateStore): number {
    return store.approvals.endAll(ENDED_BY_RESTART, this.deps.now());
  }

  /** Persists and sends a request, then waits for the first answer, or for `signal` (the turn stopping). */
  async request(
    target: { readonly store: StateStore | null; readonly ephemeral: boolean },
    params: CommandExecutionRequestApprovalParams,
    signal: AbortSignal,
    sessionPrefixes: readonly (readonly string[])[] = [],
  ): Promise<ApprovalOutcome> {
    const pending: PendingApproval = { requestId: `approval-${params.itemId}`, method: 'item/commandExecution/requestApproval', params };
    const response = await this.wait(target, pending, { turnId: params.turnId, itemId: params.itemId }, signal, sessionPrefixes);
    return response === null ? { kind: 'ended' } : { kind: 'decided', decision: commandDecisionOf(response) };
  }

  /**
   * An agent's MCP tool call waiting for the person: persisted and sent as
   * Codex sends it (`mcpServer/elicitation/request` with approval `_meta`,
   * request id `mcp_tool_call_approval_<itemId>`).
   */
  async requestMcpToolCall(
    target: { readonly store: StateStore; readonly ephemeral: boolean },
    params: McpServerElicitationRequestParams & { readonly turnId: string },
    itemId: string,
    signal: AbortSignal,
  ): Promise<McpApprovalOutcome> {
    const pending: PendingApproval = { requestId: mcpToolApprovalRequestId(itemId), method: 'mcpServer/elicitation/request', params, itemId };
    const response = await this.wait(target, pending, { turnId: params.turnId, itemId }, signal, []);
    return response === null ? { kind: 'ended' } : { kind: 'answered', response: mcpResponseOf(response) };
  }

  /**
   * The same for a patch (`item/fileChange/requestApproval`, Codex's
   * FileChangeApprovalDecision). On acceptForSession the caller grants with
   * `grantFileChanges` (the thread's next patch cannot ask before it does).
   */
  async requestFileChange(
    target: { readonly store: StateStore; readonly ephemeral: boolean },
    params: FileChangeRequestApprovalParams,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome> {
    const pending: PendingApproval = { requestId: `approval-${params.itemId}`, method: 'item/fileChange/requestApproval', params };
    const response = await this.wait(target, pending, { turnId: params.turnId, itemId: params.itemId }, signal, []);
    return response === null ? { kind: 'ended' } : { kind: 'decided', decision: commandDecisionOf(response) };
  }

  private wait(
    target: { readonly store: StateStore | null; readonly ephemeral: boolean },
    pending: PendingApproval,
    where: { readonly turnId: string; readonly itemId: string },
    signal: AbortSignal,
    sessionPrefixes: readonly (readonly string[])[],
  ): Promise<ApprovalResponse | null> {
    const { requestId } = pending;
    target.store?.approvals.insert(
      { requestId, threadId: pending.params.threadId, turnId: where.turnId, itemId: where.itemId, method: pending.method, params: JSON.stringify(pending.params) },
      this.deps.now(),
    );
    return new Promise<ApprovalResponse | null>((resolve) => {
      const onAbort = () => this.finish(requestId, 'ended', 'ended: the turn stopped', null);
      const live: LiveApproval = {
        pending,
        ephemeral: target.ephemeral,
        store: target.store,
        withdrawn: new AbortController(),
        sessionPrefixes,
        offered: false,
        settle: (response) => {
          signal.removeEventListener('abort', onAbort);
          resolve(response);
        },
      };
      this.live.set(requestId, live);
      if (target.store) this.deps.waitingChanged?.(pending.params.threadId, true, { turnId: where.turnId, ephemeral: target.ephemeral });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      // A request never overtakes a notification published before it, nor the item it asks about, which
      // its caller may announce right after asking (after the thread's waiting flag, as Codex orders them).
      void Promise.resolve()
        .then(() => this.deps.events.announced())
        .then(() => {
          if (this.live.get(requestId) === live) this.offer(live);
        });
    });
  }

  /** The first answer wins; an unknown or already settled request is a typed error. */
  answer(requestId: string, decision: CommandExecutionApprovalDecision): void {
    const live = this.live.get(requestId);
    if (!live) throw notWaiting(requestId);
    if (live.pending.method === 'item/fileChange/requestApproval' && !FileChangeApprovalDecision.safeParse(decision).success) {
      throw RpcError.invalidParams(`approval request ${requestId} is a file change: answer accept, acceptForSession, decline or cancel`);
    }
    const response: ApprovalResponse = live.pending.method === 'mcpServer/elicitation/request' ? mcpResponseOfDecision(decision) : { decision };
    this.finish(requestId, 'answered', JSON.stringify(decision), response);
  }

  /**
   * An MCP tool call answered with its elicitation response verbatim, so a
   * remembered choice (`_meta.persist`: "session" or "always") reaches the
   * tool's approval; a decision cannot say "always".
   */
  answerMcp(requestId: string, response: McpServerElicitationRequestResponse): void {
    const live = this.live.get(requestId);
    if (!live) throw notWaiting(requestId);
    if (live.pending.method !== 'mcpServer/elicitation/request') {
      throw RpcError.invalidParams(`approval request ${requestId} is not an MCP tool call: answer it with a decision`);
    }
    this.finish(requestId, 'answered', JSON.stringify(response), response);
  }

  list(threadId?: string | null): PendingApproval[] {
    return [...this.live.values()]
      .filter((live) => !threadId || live.pending.params.threadId === threadId)
      .map((live) =>
        live.pending.method === 'item/commandExecution/requestApproval'
          ? { ...live.pending, sessionPrefixes: live.sessionPrefixes.map((prefix) => [...prefix]) }
          : live.pending,
      );
  }

  /** Grants command prefixes to a thread up front (what an agent job may run unasked). */
  grantUpFront(threadId: string, prefixes: readonly (readonly string[])[]): void {
    for (const prefix of prefixes) if (prefix.length > 0) this.grant(threadId, prefix);
  }

  private grant(threadId: string, prefix: readonly string[]): void {
    const grants = this.grants.get(threadId) ?? [];
    if (grants.some((grant) => sameWords(grant.prefix, prefix))) return;
    grants.push({ threadId, prefix: [...prefix], grantedAtMs: this.deps.now() });
    this.grants.set(threadId, grants);
    this.grantsChanged(threadId);
  }

  private grantsChanged(threadId: string): void {
    this.deps.events.publish('approval/grants/changed', { threadId, grants: this.grantsOf(threadId) }, { threadId, ephemeral: true });
  }

  grantsOf(threadId: string): ApprovalGrant[] {
    const fileGrant = this.fileGrants.get(threadId);
    return [...(this.grants.get(threadId) ?? []), ...(fileGrant ? [fileGrant] : [])];
  }

  /** Every thread's grants, oldest first (the Approvals inbox lists them all). */
  allGrants(): ApprovalGrant[] {
    return [...this.grants.values(), ...this.fileGrants.values()].flat().sort((a, b) => a.grantedAtMs - b.grantedAtMs);
  }

  revoke(threadId: string, prefix: readonly string[], kind: ApprovalGrant['kind'] = 'command'): boolean {
    if (kind === 'fileChange') {
      if (!this.fileGrants.delete(threadId)) return false;
      this.grantsChanged(threadId);
      return true;
    }
    const grants = this.grants.get(threadId) ?? [];
    const kept = grants.filter((grant) => !sameWords(grant.prefix, prefix));
    this.grants.set(threadId, kept);
    if (kept.length === grants.length) return false;
    this.grantsChanged(threadId);
    return true;
  }

  /** True when every command (argv) starts with a prefix granted for the thread. */
  covers(threadId: string, commands: readonly (readonly string[])[]): boolean {
    const grants = this.grants.get(threadId) ?? [];
    if (commands.length === 0 || grants.length === 0) return false;
    return commands.every((argv) => grants.some((grant) => grant.prefix.length <= argv.length && grant.prefix.every((word, i) => argv[i] === word)));
  }

  /** True when the thread's patches inside `root` were accepted for the session. */
  coversFileChange(threadId: string, root: string): boolean {
    return this.fileGrants.get(threadId)?.root === root;
  }

  /** "Accept for session" of a patch: the thread's patches inside `root` apply without asking until revoked. */
  grantFileChanges(threadId: string, root: string): void {
    if (this.coversFileChange(threadId, root)) return;
    this.fileGrants.set(threadId, { threadId, prefix: [], grantedAtMs: this.deps.now(), kind: 'fileChange', root });
    this.grantsChanged(threadId);
  }

  /** Announces the approval in the log, then asks the clients; the first answer wins. */
  private offer(live: LiveApproval): void {
    live.offered = true;
    const { pending } = live;
    const { requestId } = pending;
    // A job the person created has no thread (no store): its request names the job instead, on the all-events stream.
    const threadId = pending.params.threadId;
    const turnId = pending.params.turnId ?? '';
    this.deps.events.publish(
      'approval.requested',
      approvalRequestedOf(pending),
      live.store === null ? { ephemeral: true } : { threadId, turnId, ephemeral: live.ephemeral },
    );
    for (const watcher of this.watchers) watcher(pending, live.withdrawn.signal);
    // A job's approval (its owner keeps the record) outlives the turn that started the job: the turn's end does not withdraw it.
    const sentTurnId = live.store === null ? null : turnId;
    const options = { requestId, threadId, turnId: sentTurnId, audience: { kind: 'every' }, signal: live.withdrawn.signal, nobodyHere: 'wait' } as const;
    const asked =
      pending.method === 'mcpServer/elicitation/request'
        ? this.deps.outgoing.request(pending.method, pending.params, options)
        : pending.method === 'item/fileChange/requestApproval'
          ? this.deps.outgoing.request(pending.method, pending.params, options)
          : this.deps.outgoing.request(pending.method, pending.params, options);
    asked.then(
      (response: ApprovalResponse) => {
        if (this.live.get(requestId) === live) this.finish(requestId, 'answered', JSON.stringify('decision' in response ? response.decision : response), response);
      },
      // Settled here first (the withdrawal is ours), or withdrawn by the sender: its thread was archived, its turn ended, the app is stopping.
      () => {
        if (this.live.get(requestId) === live) this.finish(requestId, 'ended', 'ended: the turn stopped', null);
      },
    );
  }

  private finish(requestId: string, state: 'answered' | 'ended', recorded: string, response: ApprovalResponse | null): void {
    const live = this.live.get(requestId);
    if (!live) return;
    this.live.delete(requestId);
    const threadId = live.pending.params.threadId;
    if (response && 'decision' in response && response.decision === 'acceptForSession') {
      for (const prefix of live.sessionPrefixes) this.grant(threadId, prefix);
    }
    live.withdrawn.abort();
    const turnId = live.pending.params.turnId ?? null;
    const resolved = () => {
      this.deps.events.publish('serverRequest/resolved', { threadId, requestId }, { threadId, turnId, ephemeral: live.ephemeral });
      if (live.store) this.deps.waitingChanged?.(threadId, false, { turnId, ephemeral: live.ephemeral });
    };
    // The answer's row and its announcement land together.
    const store = live.store;
    if (store)
      this.deps.events.commit(store, () => {
        store.approvals.resolve(requestId, state, recorded, this.deps.now());
        resolved();
      });
    else resolved();
    live.settle(response);
  }
}

function notWaiting(requestId: string): RpcError {
  return RpcError.because('approval.notWaiting', `approval request ${requestId} is not waiting: it was already answered, ended, or never existed`, { requestId });
}

/** A command approval's decision; an MCP-shaped answer to one (a client's mix-up) counts by its action. */
function commandDecisionOf(response: ApprovalResponse): CommandExecutionApprovalDecision {
  if ('decision' in response) return response.decision;
  return response.action === 'accept' ? 'accept' : response.action;
}

function mcpResponseOf(response: ApprovalResponse): McpServerElicitationRequestResponse {
  return 'decision' in response ? mcpResponseOfDecision(response.decision) : response;
}

/** `approval/answer` (and the HTTP API) speak command decisions; for an MCP tool call they mean Codex's elicitation answers. */
function mcpResponseOfDecision(decision: CommandExecutionApprovalDecision): McpServerElicitationRequestResponse {
  if (decision === 'decline' || decision === 'cancel') return { action: decision };
  if (decision === 'acceptForSession') return { action: 'accept', _meta: { [MCP_TOOL_APPROVAL_META.persistKey]: MCP_TOOL_APPROVAL_META.persistSession } };
  return { action: 'accept' };
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}
