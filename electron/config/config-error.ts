import type { ConfigLoadError } from '../../shared/protocol/index.js';

/** What went wrong with config.toml. */
export type ConfigErrorKind =
  /** Not valid TOML; line and column point at the problem. */
  | 'syntax'
  /** Valid TOML with a value Wheelhouse cannot use; keyPath names it. */
  | 'invalid'
  /** The file could not be read or written. */
  | 'io';

/** A config.toml problem a person can fix; its message names the line or the key. */
export class ConfigError extends Error {
  constructor(
    readonly kind: ConfigErrorKind,
    message: string,
    readonly filePath: string,
    readonly line: number | null = null,
    readonly column: number | null = null,
    readonly keyPath: string | null = null,
  ) {
    super(message);
    this.name = 'ConfigError';
  }

  /** The wire shape Settings shows. */
  toLoadError(): ConfigLoadError {
    return { message: this.message, line: this.line, column: this.column, keyPath: this.keyPath };
  }
}
