/**
 * Which `Host` and `Origin` headers `wheelhouse serve` answers: loopback
 * names with its own port only. A page on evil.example whose name is made to
 * resolve to 127.0.0.1 (DNS rebinding) reaches the port but still sends its
 * own name as Host, so every route, static file and WebSocket upgrade checks
 * it, before the token.
 */

/** The names a browser on this machine uses for the server (host names compare case-insensitively). */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

function allowedNames(boundHost: string): string[] {
  const bound = boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost;
  return [...new Set([...LOOPBACK_NAMES, bound.toLowerCase()])];
}

/** Whether a request's Host header names this server (`127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>` or the bound address). */
export function isAllowedHost(host: string | undefined, boundHost: string, port: number): boolean {
  if (host === undefined) return false;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!match) return false;
  // No port means the scheme's default: only right when the server really listens on 80.
  const givenPort = match[2] === undefined ? 80 : Number(match[2]);
  return givenPort === port && allowedNames(boundHost).includes(match[1]!);
}

/** Whether an Origin header is one of this server's own pages. */
export function isOwnOrigin(origin: string, boundHost: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && url.port === String(port) && allowedNames(boundHost).includes(url.hostname.toLowerCase());
}

/** The refusal's words: what was refused and the address that works. */
export function hostRefusal(host: string | undefined, port: number): string {
  const given = host === undefined ? 'no Host header' : `Host ${JSON.stringify(host.slice(0, 200))}`;
  return `${given} is not this server: Wheelhouse answers only on its loopback address, e.g. http://127.0.0.1:${port} (or localhost, [::1]); a page under another name cannot reach it`;
}
