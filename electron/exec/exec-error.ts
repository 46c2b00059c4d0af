/** Why the supervisor refused or failed a request; every failure carries one. */
export type ExecErrorCode =
  | 'invalid-spec'
  | 'bad-cwd'
  | 'not-found'
  | 'sandbox-unavailable'
  | 'spawn-failed'
  | 'log-failed'
  | 'disposed'
  | 'not-running'
  | 'unknown-session';

/** A typed supervisor error: nothing was started or changed when one is thrown. */
export class ExecError extends Error {
  constructor(
    readonly code: ExecErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ExecError';
  }
}
