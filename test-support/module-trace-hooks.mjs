// Module hooks (node:module register) that append every URL the process
// resolves to a file, one per line: what a process loaded, and in which order.
import { appendFileSync } from 'node:fs';

/** The line module-trace.mjs writes at the process's first write to stdout. */
export const FIRST_OUTPUT = '(first output)';

let logFile;

export function initialize(data) {
  logFile = data.logFile;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(logFile, `${resolved.url}\n`);
  return resolved;
}
