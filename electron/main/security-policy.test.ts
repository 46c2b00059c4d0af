import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../files/static-site.js';
import { APP_ENTRY_URL, isAppUrl } from './app-url.js';
import {
  desktopContentSecurityPolicy,
  devToolsEnabled,
  enforcedResponseHeaders,
  isAllowedRequest,
  isPermissionGranted,
  isTrustedSender,
  navigationDecision,
  vetExternalUrl,
  windowOpenDecision,
  withSecurityHeaders,
} from './security-policy.js';

const directives = (policy: string) => new Map(policy.split(';').map((d) => {
  const [name, ...sources] = d.trim().split(/\s+/);
  return [name!, sources] as const;
}));

describe('content security policy', () => {
  it('is the browser host policy without WebSocket sources', () => {
    const desktop = directives(desktopContentSecurityPolicy());
    const browser = directives(contentSecurityPolicy());
    expect([...desktop.keys()]).toEqual([...browser.keys()]);
    for (const [name, sources] of browser) {
      expect(desktop.get(name)).toEqual(sources.filter((s) => !s.startsWith('ws:')));
    }
    expect(desktopContentSecurityPolicy()).not.toMatch(/ws:|wss:/);
    expect(desktop.get('connect-src')).toEqual(["'self'"]);
    expect(desktop.get('script-src')).toEqual(["'self'"]);
    expect(desktop.get('object-src')).toEqual(["'none'"]);
  });

  it('replaces any policy a response brings, whatever its header case', () => {
    const headers = withSecurityHeaders({
      'content-security-policy': ["default-src *"],
      'CONTENT-SECURITY-POLICY': 'script-src * unsafe-eval',
      'Content-Type': 'text/html',
      'x-content-type-options': 'none',
    });
    const csp = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'content-security-policy');
    expect(csp).toEqual([['Content-Security-Policy', [desktopContentSecurityPolicy()]]]);
    expect(headers['Content-Type']).toEqual(['text/html']);
    expect(Object.keys(headers).filter((n) => n.toLowerCase() === 'x-content-type-options')).toEqual([
      'X-Content-Type-Options',
    ]);
    expect(headers['X-Content-Type-Options']).toEqual(['nosniff']);
    expect(withSecurityHeaders(undefined)['Content-Security-Policy']).toEqual([desktopContentSecurityPolicy()]);
  });

  it('is forced onto every response the session sees except DevTools pages', () => {
    expect(enforcedResponseHeaders('app://wheelhouse/index.html', {})?.['Content-Security-Policy']).toEqual([
      desktopContentSecurityPolicy(),
    ]);
    expect(enforcedResponseHeaders('https://example.com/', { 'content-security-policy': ['default-src *'] })).toEqual(
      withSecurityHeaders({}),
    );
    expect(enforcedResponseHeaders('devtools://devtools/bundled/inspector.html', { a: 'b' })).toBeUndefined();
  });
});

describe('app origin', () => {
  it('recognises only app://wheelhouse without credentials', () => {
    expect(isAppUrl(APP_ENTRY_URL)).toBe(true);
    expect(isAppUrl('app://wheelhouse/assets/index-abc.js')).toBe(true);
    expect(isAppUrl('app://WHEELHOUSE/index.html')).toBe(true);
    expect(isAppUrl('app://wheelhouse')).toBe(true);
    for (const url of [
      'app://evil/index.html',
      'app://wheelhouse.evil.com/',
      'app://user@wheelhouse/',
      'app://wheelhouse:8080/',
      'file:///index.html',
      'https://wheelhouse/',
      'wheelhouse',
      '',
    ]) {
      expect(isAppUrl(url), url).toBe(false);
    }
  });
});

describe('external links', () => {
  it('passes https URLs with a host, normalised', () => {
    expect(vetExternalUrl('https://example.com/docs?q=1#x')).toEqual({ ok: true, url: 'https://example.com/docs?q=1#x' });
    expect(vetExternalUrl('HTTPS://Example.COM')).toEqual({ ok: true, url: 'https://example.com/' });
  });

  it('refuses every other scheme, credentials, junk and overlong URLs', () => {
    for (const url of [
      'http://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>x</script>',
      'smb://server/share',
      'ms-settings:',
      'app://wheelhouse/index.html',
      'https://user:pass@example.com/',
      'https://attacker@example.com/',
      'not a url',
      `https://example.com/${'a'.repeat(2100)}`,
    ]) {
      expect(vetExternalUrl(url).ok, url).toBe(false);
    }
  });

  it('keeps in-app navigation, sends vetted links to the browser and blocks the rest', () => {
    expect(navigationDecision('app://wheelhouse/index.html#/threads/1')).toEqual({ action: 'allow' });
    expect(navigationDecision('https://github.com/x')).toEqual({ action: 'open-externally', url: 'https://github.com/x' });
    expect(navigationDecision('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(navigationDecision('http://127.0.0.1:3000/')).toEqual({ action: 'deny' });
  });

  it('never opens a window, not even for the app origin', () => {
    expect(windowOpenDecision('app://wheelhouse/index.html')).toEqual({ action: 'deny' });
    expect(windowOpenDecision('https://example.com/')).toEqual({ action: 'open-externally', url: 'https://example.com/' });
    expect(windowOpenDecision('javascript:alert(1)')).toEqual({ action: 'deny' });
  });
});

describe('requests and permissions', () => {
  it('lets through only the app origin, inline data, page blobs and DevTools', () => {
    expect(isAllowedRequest('app://wheelhouse/assets/app.js')).toBe(true);
    expect(isAllowedRequest('data:image/png;base64,AAAA')).toBe(true);
    expect(isAllowedRequest('blob:app://wheelhouse/3f1c')).toBe(true);
    expect(isAllowedRequest('devtools://devtools/bundled/inspector.html')).toBe(true);
    for (const url of ['https://cdn.example.com/x.js', 'http://127.0.0.1:8080/', 'ws://127.0.0.1/rpc', 'file:///etc/hosts', 'app://other/x']) {
      expect(isAllowedRequest(url), url).toBe(false);
    }
  });

  it('denies permissions except clipboard writes and notifications from the app', () => {
    expect(isPermissionGranted('clipboard-sanitized-write', 'app://wheelhouse/index.html')).toBe(true);
    expect(isPermissionGranted('notifications', 'app://wheelhouse/index.html')).toBe(true);
    expect(isPermissionGranted('notifications', 'https://example.com/')).toBe(false);
    expect(isPermissionGranted('clipboard-sanitized-write', 'app://wheelhouse')).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', 'https://example.com/')).toBe(false);
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'openExternal', 'fullscreen', 'unknown']) {
      expect(isPermissionGranted(permission, 'app://wheelhouse/index.html'), permission).toBe(false);
    }
  });
});

describe('IPC sender trust', () => {
  const main = { url: 'app://wheelhouse/index.html', isMainFrame: true };

  it('trusts the main frame of our window on the app origin', () => {
    expect(isTrustedSender({ webContentsId: 3, frame: main }, 3)).toBe(true);
  });

  it('drops other windows, iframes, foreign or vanished frames, and messages while no window exists', () => {
    expect(isTrustedSender({ webContentsId: 4, frame: main }, 3)).toBe(false);
    expect(isTrustedSender({ webContentsId: 3, frame: { ...main, isMainFrame: false } }, 3)).toBe(false);
    expect(isTrustedSender({ webContentsId: 3, frame: { url: 'https://evil.example/', isMainFrame: true } }, 3)).toBe(false);
    expect(isTrustedSender({ webContentsId: 3, frame: { url: 'file:///tmp/x.html', isMainFrame: true } }, 3)).toBe(false);
    expect(isTrustedSender({ webContentsId: 3, frame: null }, 3)).toBe(false);
    expect(isTrustedSender({ webContentsId: 3, frame: main }, null)).toBe(false);
  });
});

describe('DevTools', () => {
  it('are reachable when running from source and never in a packaged build', () => {
    expect(devToolsEnabled({ isPackaged: false })).toBe(true);
    expect(devToolsEnabled({ isPackaged: true })).toBe(false);
  });
});
