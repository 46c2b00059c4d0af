import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Host-key checking for SSH environments, the way OpenSSH does it and with
 * the same files: a key is trusted when the environment pins its
 * fingerprint, or when `~/.ssh/known_hosts` or Wheelhouse's own list holds it
 * for that host and port. A host no list knows is put to the person once
 * (shown the fingerprint); accepted, it goes into Wheelhouse's list. A host
 * whose key differs from the one a list holds is refused, never accepted
 * silently: that is what a man-in-the-middle looks like.
 */

/** `SHA256:…` (unpadded base64), as `ssh-keygen -l` and OpenSSH's prompts print it. */
export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type a wire-format public key names (`ssh-ed25519`, `ecdsa-sha2-nistp256`, …). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return '';
  const length = keyBlob.readUInt32BE(0);
  return keyBlob.subarray(4, 4 + length).toString('latin1');
}

/** How known_hosts names a host: bare for port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

interface KnownKey {
  readonly type: string;
  readonly blob: Buffer;
  readonly file: string;
  readonly line: number;
}

function matchesHashed(pattern: string, name: string): boolean {
  // |1|salt|hash: HMAC-SHA1 of the name keyed by the salt (HashKnownHosts yes).
  const [, , salt, hash] = pattern.split('|');
  if (!salt || !hash) return false;
  const digest = crypto.createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64');
  return digest === hash;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
}

/** Whether a known_hosts host field (comma-separated patterns, `!` negations, hashed names) names `name`. */
function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) return matchesHashed(field, name);
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (globToRegExp(pattern.slice(1)).test(name)) return false;
    } else if (globToRegExp(pattern).test(name)) {
      matched = true;
    }
  }
  return matched;
}

/** The keys `file` lists for `name` (revoked and CA lines are not host keys and are skipped). */
export function knownKeysIn(file: string, name: string): KnownKey[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const keys: KnownKey[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('@')) return;
    const [hosts, type, blob] = line.split(/\s+/);
    if (!hosts || !type || !blob || !hostFieldMatches(hosts, name)) return;
    keys.push({ type, blob: Buffer.from(blob, 'base64'), file, line: index + 1 });
  });
  return keys;
}

export type HostKeyVerdict =
  | { readonly verdict: 'trusted' }
  /** No list knows this host: the person decides. */
  | { readonly verdict: 'unknown'; readonly fingerprint: string; readonly keyType: string }
  /** A list holds another key of this type for the host: refused. */
  | { readonly verdict: 'changed'; readonly fingerprint: string; readonly message: string };

export interface HostKeyCheckOptions {
  readonly host: string;
  readonly port: number;
  /** `SHA256:…` given when the environment was added: the only key accepted. */
  readonly pinnedFingerprint?: string | null;
  /** Lists read, in order: the user's `~/.ssh/known_hosts`, then Wheelhouse's own. */
  readonly knownHostsFiles: readonly string[];
}

/** What the lists say about the key a server showed. */
export function checkHostKey(options: HostKeyCheckOptions, keyBlob: Buffer): HostKeyVerdict {
  const fingerprint = fingerprintOf(keyBlob);
  const keyType = keyTypeOf(keyBlob);
  const name = knownHostsName(options.host, options.port);
  const changed = (expected: string, where: string): HostKeyVerdict => ({
    verdict: 'changed',
    fingerprint,
    message:
      `the host key of ${name} has changed: it showed ${fingerprint}, but ${where} says ${expected}. ` +
      'This can mean someone is intercepting the connection; nothing was sent. If the server was really reinstalled, remove the old key there and connect again.',
  });
  if (options.pinnedFingerprint) {
    return options.pinnedFingerprint === fingerprint ? { verdict: 'trusted' } : changed(options.pinnedFingerprint, 'the fingerprint this machine was added with');
  }
  for (const file of options.knownHostsFiles) {
    const keys = knownKeysIn(file, name);
    if (keys.some((key) => key.type === keyType && key.blob.equals(keyBlob))) return { verdict: 'trusted' };
    const other = keys.find((key) => key.type === keyType);
    if (other) return changed(fingerprintOf(other.blob), `${file} (line ${other.line})`);
  }
  return { verdict: 'unknown', fingerprint, keyType };
}

/** Adds an accepted key to Wheelhouse's own list (0600), so the person is asked once. */
export function rememberHostKey(file: string, host: string, port: number, keyBlob: Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.appendFileSync(file, `${knownHostsName(host, port)} ${keyTypeOf(keyBlob)} ${keyBlob.toString('base64')}\n`, { mode: 0o600 });
}
