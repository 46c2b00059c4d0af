const STORAGE_KEY = 'wheelhouse.token';

/**
 * Reads the access token `wheelhouse serve` prints in the URL (`#token=...`),
 * remembers it for this tab so a reload still connects, and removes it from
 * the address bar so it does not linger in history or screenshots.
 */
export function takeSessionToken(location: Location, storage: Storage, history: History): string | null {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  if (fromHash) {
    storage.setItem(STORAGE_KEY, fromHash);
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    return fromHash;
  }
  return storage.getItem(STORAGE_KEY);
}
