import { RefreshCw } from 'lucide-react';
import type { ConnectionStatus } from '../../client/wheelhouse-client.js';
import { useConnectionStore, useDesktopStore } from '../../services/services.js';
import './connection-indicator.css';

const LABELS: Record<ConnectionStatus, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  disconnected: 'Disconnected',
};

/** Dot and word saying whether this window reaches the runtime, and a retry button when it does not; the banner says why. */
export function ConnectionIndicator() {
  const status = useConnectionStore((s) => s.status);
  const error = useConnectionStore((s) => s.error);
  const server = useConnectionStore((s) => s.server);
  const retry = useConnectionStore((s) => s.retry);
  const detail =
    status === 'connected' && server
      ? `Runtime ${server.serverVersion} · ${server.wheelhouseHome}`
      : (error ?? undefined);
  const problem = useConnectionStore((s) => s.problem);
  const canRetry = problem === null && (status === 'reconnecting' || (status === 'disconnected' && error !== null));
  // In the desktop app the link never drops, but its runtime may not be running.
  const runtime = useDesktopStore((s) => (s.restarting ? 'restarting' : (s.runtime?.state ?? null)));
  const label = status === 'connected' && runtime === 'failed' ? 'Not running' : status === 'connected' && runtime === 'restarting' ? 'Restarting…' : LABELS[status];

  return (
    <div className="connection" data-testid="connection-status" data-status={status} data-runtime={runtime ?? undefined} title={detail}>
      <span className="connection-dot" aria-hidden="true" />
      <div className="connection-text" role="status" aria-live="polite">
        <span className="connection-label">{label}</span>
      </div>
      {canRetry && (
        <button type="button" className="icon-button" aria-label="Retry connection" title="Retry now" onClick={retry}>
          <RefreshCw size={13} strokeWidth={2} aria-hidden="true" />
        </button>
      )}
    </div>
  );
}
