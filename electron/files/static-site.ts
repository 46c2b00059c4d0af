import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The built renderer as a static site, served alike by `wheelhouse serve`
 * (electron/server/static-files.ts) and the desktop app:// protocol
 * (electron/main/app-protocol.ts): which file a path names, its type and the
 * headers it carries. Only the carriers differ.
 */

/** Content types of the files the built renderer contains. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The browser host's policy: the renderer's own files, plus the loopback WebSocket. */
export function contentSecurityPolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** Where a URL path leads inside the site root, or why it leads nowhere. */
export type StaticPath = { readonly file: string } | { readonly status: 400 | 403; readonly reason: string };

/**
 * Maps a URL path (still percent-encoded) to a path inside `root`. Anything
 * that would leave the root, in any encoding, is refused. Pure: no file access.
 */
export function resolveStaticPath(root: string, encodedPathname: string): StaticPath {
  let pathname: string;
  try {
    pathname = decodeURIComponent(encodedPathname);
  } catch {
    return { status: 400, reason: 'malformed path' };
  }
  if (pathname.includes('\0')) return { status: 400, reason: 'malformed path' };
  const resolvedRoot = path.resolve(root);
  // Backslashes are separators on Windows only; refuse them everywhere so a path means the same on every host.
  if (pathname.includes('\\')) return { status: 403, reason: 'forbidden' };
  const file = path.resolve(resolvedRoot, `.${pathname}`);
  if (file !== resolvedRoot && !file.startsWith(resolvedRoot + path.sep)) return { status: 403, reason: 'forbidden' };
  return { file };
}

/** Headers of a served file: its type, the policy, and caching (hashed assets forever, the page never). */
export function staticFileHeaders(file: string, csp: string): Record<string, string> {
  const ext = path.extname(file);
  return {
    ...staticSecurityHeaders(csp),
    'Content-Type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
    'Cache-Control': ext === '.html' ? 'no-store' : 'public, max-age=31536000, immutable',
  };
}

/** Headers every answer carries, errors included. */
export function staticSecurityHeaders(csp: string): Record<string, string> {
  return { 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };
}

/** What to answer: a file to send, or a short text. */
export type StaticAnswer =
  | { readonly status: 200; readonly headers: Record<string, string>; readonly file: string }
  | { readonly status: number; readonly headers: Record<string, string>; readonly text: string };

const NOT_BUILT = 'The Wheelhouse UI is not built. Run `npm run build` first.';

/**
 * Answers one request for the site in `root`. Extension-less paths (the
 * single-page app's routes) fall back to index.html; missing assets are 404s.
 */
export async function answerStaticRequest(
  request: { readonly method: string; readonly encodedPathname: string },
  root: string,
  csp: string,
): Promise<StaticAnswer> {
  const plain = (status: number, text: string, extra: Record<string, string> = {}): StaticAnswer => ({
    status,
    headers: { ...staticSecurityHeaders(csp), ...extra, 'Content-Type': 'text/plain; charset=utf-8' },
    text,
  });
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed', { Allow: 'GET, HEAD' });
  const resolved = resolveStaticPath(root, request.encodedPathname);
  if (!('file' in resolved)) return plain(resolved.status, resolved.reason);
  const index = path.join(path.resolve(root), 'index.html');
  let file: string;
  if (await isFile(resolved.file)) file = resolved.file;
  else if (resolved.file === index || path.extname(resolved.file) === '') file = index;
  else return plain(404, 'not found');
  if (!(await isFile(file))) return plain(503, NOT_BUILT);
  return { status: 200, headers: staticFileHeaders(file, csp), file };
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
