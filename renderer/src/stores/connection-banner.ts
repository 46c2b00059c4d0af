import type { DesktopRuntimeState } from '../../../shared/protocol/index.js';
import type { ConnectionSnapshot } from '../client/wheelhouse-client.js';

/** What the banner across the window says when Wheelhouse is not there. */
export interface ConnectionBanner {
  readonly tone: 'danger' | 'warning';
  readonly title: string;
  /** What happened, as Wheelhouse said it (null when there is nothing to add). */
  readonly detail: string | null;
  /** What happens next, or what helps. */
  readonly hint: string;
  /** The one button: restart the runtime (desktop app) or try to reach it again now (browser). */
  readonly action: 'restart' | 'retry' | null;
  /** Working on it: the button shows progress and does nothing. */
  readonly busy: boolean;
}

/** The server's own sentence for a stop ("Wheelhouse stopped. Start it again…") ends in advice the banner gives itself. */
function reasonOnly(text: string | null): string | null {
  if (!text) return null;
  const first = text.split(/(?<=\.)\s+/)[0] ?? text;
  return /^Wheelhouse stopped\.?$/i.test(first.trim()) ? null : text;
}

/**
 * Whether the window shows live state: connected, and (in the desktop app)
 * its runtime open. While it is not, counts and states on screen are only
 * what was last known.
 */
export function isLive(status: ConnectionSnapshot['status'], desktop: DesktopRuntimeState | null): boolean {
  if (status !== 'connected') return false;
  return desktop === null || desktop.state === 'running' || desktop.state === 'starting';
}

/**
 * The banner for the window's connection, or null when all is well (or while
 * the very first connection is still being made). An access problem (a
 * missing or refused token) is the access page's to explain, not the banner's.
 */
export function connectionBanner(snapshot: ConnectionSnapshot, desktop: DesktopRuntimeState | null, restarting: boolean): ConnectionBanner | null {
  if (snapshot.problem !== null) return null;
  if (restarting || desktop?.state === 'restarting') {
    return { tone: 'warning', title: 'Restarting Wheelhouse…', detail: null, hint: 'The window reloads when it is running again. Jobs keep running.', action: 'restart', busy: true };
  }
  if (snapshot.status === 'connected' && desktop?.state === 'failed') {
    return {
      tone: 'danger',
      title: 'Wheelhouse could not start',
      detail: desktop.reason,
      hint: 'What you see may be out of date, and nothing can be changed until it runs.',
      action: 'restart',
      busy: false,
    };
  }
  switch (snapshot.status) {
    case 'connected':
    case 'connecting':
      return null;
    case 'reconnecting':
    case 'disconnected':
      return {
        tone: 'danger',
        title: snapshot.closedByServer ? 'Wheelhouse has stopped' : snapshot.status === 'reconnecting' ? 'Lost the connection to Wheelhouse' : 'Cannot reach Wheelhouse',
        detail: snapshot.closedByServer ? reasonOnly(snapshot.error) : snapshot.error,
        hint:
          'What you see may be out of date: counts and states are not live. This window reconnects by itself as soon as Wheelhouse runs again.',
        action: 'retry',
        busy: false,
      };
    default:
      return snapshot.status satisfies never;
  }
}
