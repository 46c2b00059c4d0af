import { DESKTOP_CLIENT_NAME, WHEELHOUSE_ORIGINATOR, type SessionSource } from '../../../shared/protocol/index.js';
import type { ConnectionSession } from '../context.js';

/**
 * Whether a new thread is a person's (`interactive`) or a program's (`api`):
 * a thread started from the desktop window (over IPC, or over WebSocket in
 * development, where only its client name tells it apart) is the person's;
 * any other client's is a program's. The thread keeps it as its `source`.
 */
export function sessionSourceOf(session: Pick<ConnectionSession, 'carrier' | 'clientInfo'>): Extract<SessionSource, 'interactive' | 'api'> {
  return session.carrier === 'ipc' || session.clientInfo?.name === DESKTOP_CLIENT_NAME ? 'interactive' : 'api';
}

/**
 * Codex's `originator` of a thread the client makes: the name it gave at
 * `initialize`. Codex keeps one per process (its first client's); Wheelhouse
 * serves many clients at once, so each thread keeps its own maker's.
 */
export function originatorOf(session: Pick<ConnectionSession, 'clientInfo'>): string {
  return session.clientInfo?.name ?? WHEELHOUSE_ORIGINATOR;
}
