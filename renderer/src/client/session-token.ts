const STORAGE_KEY = 'wheelhouse.token';

/**
 * Reads the access token `wheelhouse serve` prints in the URL (`#token=...`),
 * remembers it for this tab so a reload still connects, and removes it from
 * the address bar so it does not linger in history or screenshots.
 */
export function takeSessionToken(location: Location, storage: Storage, history: History): string | null {
  return takeTokenFromHash(location, storage, history) ?? storage.getItem(STORAGE_KEY);
}

/**
 * Calls `onToken` whenever a new link is pasted into this tab's address bar
 * (only the `#token=` part changes, so the browser does not reload the page).
 */
export function watchSessionToken(target: Window, onToken: (token: string) => void): () => void {
  const listener = () => {
    const token = takeTokenFromHash(target.location, target.sessionStorage, target.history);
    if (token) onToken(token);
  };
  target.addEventListener('hashchange', listener);
  return () => target.removeEventListener('hashchange', listener);
}

function takeTokenFromHash(location: Location, storage: Storage, history: History): string | null {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  if (!fromHash) return null;
  storage.setItem(STORAGE_KEY, fromHash);
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  return fromHash;
}
