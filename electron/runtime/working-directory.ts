import fs from 'node:fs';
import path from 'node:path';
import { RpcError } from '../../shared/protocol/index.js';

/**
 * Checks a requested working directory, or throws -32602 naming the field
 * when it is relative (it would be resolved against the server's own folder,
 * which the client knows nothing about), does not exist or is not a folder —
 * a thread never starts in a place its tools cannot read.
 */
export function requireDirectory(method: string, requested: string): string {
  requireAbsolute(method, requested);
  const resolved = path.resolve(requested);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(resolved);
  } catch {
    throw RpcError.because('cwd.notFound', `invalid params for ${method}: cwd: folder does not exist: ${resolved}`, {
      field: 'cwd',
      path: resolved,
      problem: 'missing',
    });
  }
  if (!stat.isDirectory()) {
    throw RpcError.because('cwd.notFolder', `invalid params for ${method}: cwd: not a folder: ${resolved}`, {
      field: 'cwd',
      path: resolved,
      problem: 'notFolder',
    });
  }
  return resolved;
}

/** Throws -32602 for a relative cwd: a client cannot know which folder the server would resolve it against. */
export function requireAbsolute(method: string, requested: string): void {
  if (!path.isAbsolute(requested)) {
    throw RpcError.invalidParams(`invalid params for ${method}: cwd: must be an absolute path, got "${requested}"`);
  }
}
