/**
 * Why a browser page cannot connect although retrying will not help: it has
 * no access token, or the server refuses the one it has (restarted with
 * `--rotate-token`). The page waits for a new `#token=` instead of retrying.
 */
export type AccessProblem = 'no-token' | 'token-refused';

/** A connect failure that retrying cannot fix; carries which one. */
export class AccessError extends Error {
  constructor(readonly problem: AccessProblem) {
    super(problem === 'no-token' ? 'This page has no access token' : 'The runtime refused this page’s access token');
    this.name = 'AccessError';
  }
}
