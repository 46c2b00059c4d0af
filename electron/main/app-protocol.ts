import fs from 'node:fs/promises';
import type { Privileges } from 'electron';
import { answerStaticRequest, staticSecurityHeaders } from '../files/static-site.js';
import { isAppUrl } from './app-url.js';
import { desktopContentSecurityPolicy } from './security-policy.js';

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

/**
 * Serves one app:// request from the built renderer in `rendererRoot`, by the
 * same rules as `wheelhouse serve` (electron/files/static-site.ts) under the
 * desktop policy.
 */
export async function serveAppRequest(request: AppRequest, rendererRoot: string): Promise<AppResponse> {
  const csp = desktopContentSecurityPolicy();
  if (!isAppUrl(request.url)) {
    return { status: 404, headers: { ...staticSecurityHeaders(csp), 'Content-Type': 'text/plain; charset=utf-8' }, body: 'not found' };
  }
  let encodedPathname: string;
  try {
    encodedPathname = new URL(request.url).pathname;
  } catch {
    return { status: 400, headers: { ...staticSecurityHeaders(csp), 'Content-Type': 'text/plain; charset=utf-8' }, body: 'malformed URL' };
  }
  const answer = await answerStaticRequest({ method: request.method, encodedPathname }, rendererRoot, csp);
  if ('text' in answer) return { status: answer.status, headers: answer.headers, body: answer.text };
  if (request.method === 'HEAD') return { status: 200, headers: answer.headers, body: null };
  return { status: 200, headers: answer.headers, body: new Uint8Array(await fs.readFile(answer.file)) };
}
