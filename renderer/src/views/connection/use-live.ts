import { useConnectionStore, useDesktopStore } from '../../services/services.js';
import { isLive } from '../../stores/connection-banner.js';

/** Whether the window shows live state (see isLive): badges and counts may claim it only then. */
export function useLive(): boolean {
  const status = useConnectionStore((s) => s.status);
  const runtime = useDesktopStore((s) => s.runtime);
  return isLive(status, runtime);
}
