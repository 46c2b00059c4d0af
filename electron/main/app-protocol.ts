import fs from 'node:fs/promises';
import path from 'node:path';
import type { Privileges } from 'electron';
import { CONTENT_TYPES } from '../server/static-files.js';
import { isAppUrl } from './app-url.js';
import { securityHeaders } from './security-policy.js';

/**
 * Privileges of the app:// scheme: a standard, secure origin (so relative URLs,
 * storage and 'self' work) whose ES modules load with CORS semantics, and that
 * gets V8's code cache. It never bypasses CSP.
 */
export const APP_SCHEME_PRIVILEGES: Privileges = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: true,
  codeCache: true,
};

/** What the protocol handler answers; main wraps it in a fetch Response. */
export interface AppResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Null for HEAD requests and bodiless errors. */
  readonly body: Uint8Array<ArrayBuffer> | string | null;
}

/** The subset of a fetch Request the handler reads. */
export interface AppRequest {
  readonly method: string;
  readonly url: string;
}

const NOT_BUILT = 'The Wheelhouse UI is not built. Run `npm run build` first.';

/**
 * Serves one app:// request from the built renderer in `rendererRoot`. Paths
 * stay inside the root; extension-less paths fall back to index.html (the
 * single-page app's routes), missing assets are 404s.
 */
export async function serveAppRequest(request: AppRequest, rendererRoot: string): Promise<AppResponse> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed', { Allow: 'GET, HEAD' });
  if (!isAppUrl(request.url)) return plain(404, 'not found');
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(request.url).pathname);
  } catch {
    return plain(400, 'malformed path');
  }
  if (pathname.includes('\0')) return plain(400, 'malformed path');
  const root = path.resolve(rendererRoot);
  const requested = path.resolve(root, `.${pathname}`);
  if (requested !== root && !requested.startsWith(root + path.sep)) return plain(403, 'forbidden');

  const index = path.join(root, 'index.html');
  let file: string;
  if (await isFile(requested)) file = requested;
  else if (requested === index || path.extname(requested) === '') file = index;
  else return plain(404, 'not found');
  if (!(await isFile(file))) return plain(503, NOT_BUILT);

  const headers = {
    ...securityHeaders(),
    'Content-Type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
  };
  if (request.method === 'HEAD') return { status: 200, headers, body: null };
  return { status: 200, headers, body: new Uint8Array(await fs.readFile(file)) };
}

function plain(status: number, text: string, extra: Readonly<Record<string, string>> = {}): AppResponse {
  return {
    status,
    headers: { ...securityHeaders(), ...extra, 'Content-Type': 'text/plain; charset=utf-8' },
    body: text,
  };
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}
