/**
 * Protocol limits, dependency-free so the Electron preload can enforce them
 * without bundling the schema library.
 */

/** Largest single message any carrier accepts (bytes of JSON text). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays accepted in params. Real params are a
 * handful of levels deep (a config table inside a provider table); the cap
 * keeps recursive validation and TOML writing far from the stack limit.
 */
export const MAX_PARAMS_DEPTH = 64;

/** Longest array accepted anywhere in params. */
export const MAX_PARAMS_ARRAY_ITEMS = 10_000;
