/**
 * Protocol limits, dependency-free so the Electron preload can enforce them
 * without bundling the schema library.
 */

/** Largest single message any carrier accepts (bytes of JSON text). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
