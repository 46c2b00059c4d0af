import { CircleAlert, LoaderCircle, RefreshCw, RotateCcw } from 'lucide-react';
import { useConnectionStore, useDesktopStore } from '../../services/services.js';
import { connectionBanner } from '../../stores/connection-banner.js';
import './connection-banner.css';

/**
 * Across the top of the window while Wheelhouse is not there: what happened in
 * plain words, that what shows is not live, and the one thing that helps
 * (restart it, in the desktop app; try again now, in a browser).
 */
export function ConnectionBanner() {
  const snapshot = useConnectionStore();
  const runtime = useDesktopStore((s) => s.runtime);
  const restarting = useDesktopStore((s) => s.restarting);
  const restart = useDesktopStore((s) => s.restart);
  const banner = connectionBanner(snapshot, runtime, restarting);
  if (!banner) return null;
  const Icon = banner.busy ? LoaderCircle : CircleAlert;
  return (
    <div className="connection-banner" data-testid="connection-banner" data-tone={banner.tone} role="alert">
      <Icon size={18} strokeWidth={2} className={banner.busy ? 'connection-banner-icon spin' : 'connection-banner-icon'} aria-hidden="true" />
      <div className="connection-banner-text">
        <p className="connection-banner-title">{banner.title}</p>
        {banner.detail && (
          <p className="connection-banner-detail" data-testid="connection-banner-detail">
            {banner.detail}
          </p>
        )}
        <p className="connection-banner-hint">{banner.hint}</p>
      </div>
      {banner.action === 'restart' && (
        <button type="button" className="button button-primary" data-testid="restart-runtime" disabled={banner.busy} onClick={() => void restart()}>
          <RotateCcw size={14} strokeWidth={2} aria-hidden="true" />
          {banner.busy ? 'Restarting…' : 'Restart Wheelhouse'}
        </button>
      )}
      {banner.action === 'retry' && (
        <button type="button" className="button button-secondary" data-testid="connection-retry" onClick={snapshot.retry}>
          <RefreshCw size={14} strokeWidth={2} aria-hidden="true" />
          Try again now
        </button>
      )}
    </div>
  );
}
