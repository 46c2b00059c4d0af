/** JSON-RPC error codes used on every carrier. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const { InvalidRequest, InvalidParams, Internal, MethodNotFound } = ErrorCode;

/**
 * Every `data.reason` the runtime sends, with the JSON-RPC code it always
 * travels with. Closed: a client switches on it (the renderer does, see
 * renderer/src/format/request-errors.ts), and docs/errors.md says for each
 * when it happens and what a client should do (a test holds the two equal).
 * One style: `<area>.<camelCase>`.
 */
export const ERROR_REASON_CODES = {
  'request.invalidParams': InvalidParams,
  'runtime.unavailable': Internal,
  'desktop.only': MethodNotFound,
  'desktop.loginItemUnsupported': InvalidRequest,
  'thread.notFound': InvalidRequest,
  'thread.archived': InvalidRequest,
  'thread.busy': InvalidRequest,
  'turn.notRunning': InvalidRequest,
  'goal.budgetSpent': InvalidRequest,
  'cwd.notFound': InvalidParams,
  'cwd.notFolder': InvalidParams,
  'workspace.notFound': InvalidRequest,
  'workspace.notDirectory': InvalidRequest,
  'workspace.unreadable': InvalidRequest,
  'config.invalid': InvalidParams,
  'config.syntax': InvalidRequest,
  'config.io': InvalidRequest,
  'config.badKeyPath': InvalidParams,
  'config.providerNotFound': InvalidParams,
  'secretStorage.unavailable': InvalidRequest,
  'secretStorage.failed': Internal,
  'job.notFound': InvalidRequest,
  'job.wrongState': InvalidRequest,
  'job.kindUnsupported': InvalidRequest,
  'job.runNotFound': InvalidRequest,
  'job.lineOutOfRange': InvalidRequest,
  'job.logUnreadable': InvalidRequest,
  'environment.unknown': InvalidRequest,
  'environment.inUse': InvalidRequest,
  'environment.notForThreads': InvalidRequest,
  'schedule.notFound': InvalidRequest,
  'schedule.slotStarted': InvalidRequest,
  'policy.forbidden': InvalidRequest,
  'rules.lineMoved': InvalidParams,
  'rules.invalidRule': InvalidParams,
  'rules.notRulesFile': InvalidParams,
  'approval.notWaiting': InvalidRequest,
  'queue.notFound': InvalidRequest,
  'queue.alreadyStarting': InvalidRequest,
  'queue.orderChanged': InvalidRequest,
  'hook.blocked': InvalidRequest,
  'process.idInUse': InvalidRequest,
  'process.notRunning': InvalidRequest,
  'process.invalidSpec': InvalidParams,
  'process.badCwd': InvalidParams,
  'process.commandNotFound': InvalidParams,
  'process.sandboxUnavailable': InvalidRequest,
  'process.spawnFailed': Internal,
  'process.logFailed': Internal,
  'process.shuttingDown': InvalidRequest,
  'process.unknownSession': InvalidRequest,
  'project.notFound': InvalidRequest,
  'changes.turnRunning': InvalidRequest,
  'changes.unavailable': InvalidRequest,
  'changes.changedSince': InvalidRequest,
  'git.notARepository': InvalidRequest,
  'git.failed': InvalidRequest,
  'worktree.none': InvalidRequest,
  'worktree.turnRunning': InvalidRequest,
  'worktree.notARepository': InvalidRequest,
  'worktree.noCommit': InvalidRequest,
  'worktree.baseNotCheckedOut': InvalidRequest,
  'worktree.checkoutBusy': InvalidRequest,
} as const satisfies Record<string, ErrorCode>;

/** A `data.reason` the runtime may send; nothing outside this union is ever sent. */
export type ErrorReason = keyof typeof ERROR_REASON_CODES;

export const ERROR_REASONS = Object.keys(ERROR_REASON_CODES) as readonly ErrorReason[];

export function isErrorReason(value: unknown): value is ErrorReason {
  return typeof value === 'string' && Object.hasOwn(ERROR_REASON_CODES, value);
}

/** An error's `data`: its reason from the union, and any details that help a client act (ids, paths). */
export interface ErrorData {
  readonly reason: ErrorReason;
  readonly [detail: string]: unknown;
}
