/**
 * The app's own origin. The renderer is served from `app://wheelhouse/`, a
 * privileged standard scheme, rather than file://: file:// pages share one
 * opaque origin with every file on disk (so CSP 'self' and "same-URL"
 * navigation checks would cover the whole filesystem) and need Electron's
 * extra file privileges; a custom origin gives 'self' a precise meaning.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'wheelhouse';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The URL the window loads. */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** True when `url` is on the app origin exactly (no credentials, no port, no other host). */
export function isAppUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.host.toLowerCase() === APP_HOST &&
    parsed.username === '' &&
    parsed.password === ''
  );
}
