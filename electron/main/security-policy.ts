import { contentSecurityPolicy, staticSecurityHeaders } from '../files/static-site.js';
import { isAppUrl } from './app-url.js';

/**
 * The window's Content-Security-Policy: the browser host's policy without its
 * ws: sources, because the desktop renderer talks to the runtime over IPC.
 * Derived rather than copied so the two hosts cannot drift apart.
 */
export function desktopContentSecurityPolicy(): string {
  return contentSecurityPolicy()
    .split(';')
    .map((directive) =>
      directive
        .trim()
        .split(/\s+/)
        .filter((token) => !token.startsWith('ws:') && !token.startsWith('wss:'))
        .join(' '),
    )
    .join('; ');
}

/** Headers every app response carries, whatever produced it. */
export function securityHeaders(): Readonly<Record<string, string>> {
  return staticSecurityHeaders(desktopContentSecurityPolicy());
}

/**
 * Response headers with ours in force: any header of the same name (in any
 * letter case) is replaced, so a response cannot loosen the policy.
 */
export function withSecurityHeaders(
  headers: Readonly<Record<string, string | string[]>> | undefined,
): Record<string, string[]> {
  const ours = securityHeaders();
  const replaced = new Set(Object.keys(ours).map((name) => name.toLowerCase()));
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!replaced.has(name.toLowerCase())) result[name] = Array.isArray(value) ? [...value] : [value];
  }
  for (const [name, value] of Object.entries(ours)) result[name] = [value];
  return result;
}

/**
 * Headers to force onto a response the session received: ours on everything
 * except DevTools' own pages, which carry their own policy. Undefined means
 * "leave the response as it is".
 */
export function enforcedResponseHeaders(
  url: string,
  headers: Readonly<Record<string, string | string[]>> | undefined,
): Record<string, string[]> | undefined {
  return url.toLowerCase().startsWith('devtools:') ? undefined : withSecurityHeaders(headers);
}

/** Longest external URL the app hands to the OS. */
export const MAX_EXTERNAL_URL_LENGTH = 2048;

/** Why a URL may (not) be opened in the user's browser. */
export type ExternalUrlVerdict =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Vets a URL before `shell.openExternal`: only https, with a host and without
 * embedded credentials (a classic way to disguise the real destination).
 * Anything else (file:, javascript:, custom app schemes, ...) could run or
 * open local things, so it is refused.
 */
export function vetExternalUrl(raw: string): ExternalUrlVerdict {
  if (raw.length > MAX_EXTERNAL_URL_LENGTH) return { ok: false, reason: 'URL is too long' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: `scheme ${url.protocol} is not allowed` };
  if (url.hostname === '') return { ok: false, reason: 'URL has no host' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'URL carries credentials' };
  return { ok: true, url: url.href };
}

/** What to do with a navigation or window.open request. */
export type NavigationDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'deny' }
  | { readonly action: 'open-externally'; readonly url: string };

/** In-window navigation: stay on the app origin; vetted https links go to the user's browser. */
export function navigationDecision(url: string): NavigationDecision {
  if (isAppUrl(url)) return { action: 'allow' };
  return externalOrDeny(url);
}

/** window.open never creates a window; vetted https links go to the user's browser. */
export function windowOpenDecision(url: string): NavigationDecision {
  return externalOrDeny(url);
}

function externalOrDeny(url: string): NavigationDecision {
  const verdict = vetExternalUrl(url);
  return verdict.ok ? { action: 'open-externally', url: verdict.url } : { action: 'deny' };
}

/**
 * Network requests the session lets through: the app origin, inline data,
 * blobs the page made itself, and DevTools. No remote content, ever.
 */
export function isAllowedRequest(url: string): boolean {
  if (isAppUrl(url)) return true;
  const scheme = url.slice(0, url.indexOf(':') + 1).toLowerCase();
  return scheme === 'data:' || scheme === 'blob:' || scheme === 'devtools:';
}

/**
 * Permission requests and checks: denied, except writing sanitized text to the
 * clipboard (the UI's copy buttons) and desktop notifications (jobs), from the app itself.
 */
export function isPermissionGranted(permission: string, requestingUrl: string): boolean {
  return (permission === 'clipboard-sanitized-write' || permission === 'notifications') && isAppUrl(requestingUrl);
}

/** The parts of an IPC event that decide whether its sender is trusted. */
export interface IpcSenderInfo {
  readonly webContentsId: number;
  /** The sending frame, or null when it is gone (navigated away or destroyed). */
  readonly frame: { readonly url: string; readonly isMainFrame: boolean } | null;
}

/**
 * An IPC message is trusted only from the main frame of our own window while
 * it shows the app origin; anything else (other windows, iframes, a frame that
 * navigated elsewhere) is dropped.
 */
export function isTrustedSender(sender: IpcSenderInfo, windowWebContentsId: number | null): boolean {
  return (
    windowWebContentsId !== null &&
    sender.webContentsId === windowWebContentsId &&
    sender.frame !== null &&
    sender.frame.isMainFrame &&
    isAppUrl(sender.frame.url)
  );
}

/**
 * DevTools only where the app runs from source: in a packaged build they would
 * let anyone at the keyboard call the runtime bridge by hand, and read the page.
 */
export function devToolsEnabled(host: { readonly isPackaged: boolean }): boolean {
  return !host.isPackaged;
}
