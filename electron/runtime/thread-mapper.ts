import {
  THREAD_CODEX_NULLS,
  toTurnError,
  type AskForApproval,
  type CodexAskForApproval,
  type SandboxMode,
  type SandboxPolicy,
  type SessionSource,
  type Thread,
  type ThreadLifecycle,
  type ThreadStatus,
  type Turn,
  type ThreadItem,
  type TurnItemsView,
  LOCAL_ENVIRONMENT_ID,
  type ThreadReadState,
} from '../../shared/protocol/index.js';
import type { ReadReceipt } from '../store/read-state-store.js';
import type { ThreadRecord } from '../store/thread-store.js';
import type { TurnRecord } from '../store/turn-store.js';

const toSeconds = (ms: number): number => Math.floor(ms / 1000);

/** Builds the wire Thread from its row and its live state. */
export function toWireThread(record: ThreadRecord, status: ThreadStatus, turns: Turn[] = []): Thread {
  return {
    id: record.id,
    sessionId: record.id,
    ...THREAD_CODEX_NULLS,
    canAcceptDirectInput: !record.archived,
    environments:
      record.environmentId === LOCAL_ENVIRONMENT_ID || record.environmentCwd === null
        ? [{ environmentId: LOCAL_ENVIRONMENT_ID, cwd: record.cwd, runtimeWorkspaceRoots: [record.cwd] }]
        : [{ environmentId: record.environmentId, cwd: record.environmentCwd, runtimeWorkspaceRoots: [record.environmentCwd] }],
    // Pageable with thread/turns/list and thread/items/list, as Codex's paginated threads (full reads stay supported).
    historyMode: 'paginated',
    recencyAt: toSeconds(record.updatedAtMs),
    forkedFromId: record.forkedFromId,
    preview: record.preview,
    ephemeral: record.ephemeral,
    modelProvider: record.modelProvider,
    model: record.model,
    createdAt: toSeconds(record.createdAtMs),
    updatedAt: toSeconds(record.updatedAtMs),
    status,
    lifecycle: record.status as ThreadLifecycle,
    path: record.path,
    cwd: record.cwd,
    cliVersion: record.cliVersion,
    originator: record.originator,
    source: record.source === 'unknown' ? 'unknown' : 'appServer',
    origin: record.source as SessionSource,
    gitInfo:
      record.gitSha || record.gitBranch || record.gitOriginUrl
        ? { sha: record.gitSha, branch: record.gitBranch, originUrl: record.gitOriginUrl }
        : null,
    name: record.name,
    approvalPolicy: record.approvalMode as AskForApproval | null,
    sandbox: record.sandboxPolicy as SandboxMode | null,
    memoryMode: record.memoryMode,
    archived: record.archived,
    archivedAt: record.archivedAtMs === null ? null : toSeconds(record.archivedAtMs),
    turns,
  };
}

/**
 * `itemsView` says what `items` holds: every item of the turn (`full`, the
 * default when items are given), what a notification carries (`summary`), or
 * nothing loaded (`notLoaded`, the default without items).
 */
export function toWireTurn(record: TurnRecord, items: ThreadItem[] = [], itemsView: TurnItemsView = items.length > 0 ? 'full' : 'notLoaded'): Turn {
  return {
    id: record.id,
    status: record.status,
    error: record.error ? toTurnError(record.error) : null,
    model: record.model,
    startedAt: record.startedAtMs === null ? null : toSeconds(record.startedAtMs),
    completedAt: record.completedAtMs === null ? null : toSeconds(record.completedAtMs),
    durationMs:
      record.startedAtMs !== null && record.completedAtMs !== null
        ? record.completedAtMs - record.startedAtMs
        : null,
    usage: record.usage,
    rootTurnId: record.id,
    items,
    itemsView,
  };
}

/** The approval policy a Codex client sees: the thread's, or `never` (Wheelhouse's tools ask for nothing). */
export function effectiveApprovalPolicy(policy: AskForApproval | null): CodexAskForApproval {
  if (policy === null) return 'never';
  return policy === 'on-failure' ? 'on-request' : policy;
}

/**
 * The sandbox as Codex's policy object. Wheelhouse's built-in tools only
 * read, so a thread without a sandbox mode is effectively read-only.
 */
export function sandboxPolicyOf(mode: SandboxMode | null, cwd: string): SandboxPolicy {
  switch (mode) {
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
    case 'workspace-write':
      return {
        type: 'workspaceWrite',
        writableRoots: [cwd],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      };
    default:
      return { type: 'readOnly', networkAccess: false };
  }
}

/** Preview text: the first line of a message, trimmed to 120 characters (seed 000). */
export function previewOf(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return [...line].slice(0, 120).join('');
}

/** A stored read receipt as Codex's `ThreadReadState` ('' is the thread's start: marked unread). */
export function toWireReadState(receipt: ReadReceipt): ThreadReadState {
  const turnId = receipt.firstUnreadTurn;
  return {
    firstUnread: turnId === null ? null : turnId === '' ? { type: 'threadStart' } : { type: 'turn', turnId },
    revision: receipt.revision,
  };
}
