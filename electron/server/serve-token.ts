import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';

/** File in the home holding the browser host's access token (owner-only, 0600). */
export const SERVE_TOKEN_FILE = 'serve-token';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{24,128}$/;

/**
 * The access token of `wheelhouse serve` for this home. The same token is
 * reused across restarts so open tabs reconnect on their own; `rotate` makes a
 * new one (every old link stops working). A missing, unreadable or malformed
 * file is replaced by a fresh token.
 */
export function loadServeToken(home: string, options: { rotate?: boolean } = {}): string {
  const file = path.join(home, SERVE_TOKEN_FILE);
  if (!options.rotate) {
    const existing = readToken(file);
    if (existing) {
      // A copy restored from a backup may have lost its mode; the token is a credential.
      fs.chmodSync(file, 0o600);
      return existing;
    }
  }
  const token = randomBytes(24).toString('base64url');
  writeFileAtomic(file, `${token}\n`, 0o600);
  return token;
}

function readToken(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return TOKEN_PATTERN.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}
