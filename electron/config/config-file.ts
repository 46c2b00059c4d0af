import fs from 'node:fs';
import { parse, stringify, TomlError, type TomlTable } from 'smol-toml';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ConfigError } from './config-error.js';
import { salvageConfigDocument, type WheelhouseConfig } from './config-schema.js';

/** config.toml as last read: the raw document (for read-modify-write) and the usable settings. */
export interface ConfigSnapshot {
  readonly filePath: string;
  /** Every key as parsed, unknown ones included; empty when the file is missing or malformed. */
  readonly document: TomlTable;
  /** The validated settings; bad values are left out and reported in `error`. */
  readonly config: WheelhouseConfig;
  /** Why the file (or part of it) is not in effect; null when all is well. */
  readonly error: ConfigError | null;
}

/**
 * Reads config.toml. Never throws: a missing file means defaults, a
 * malformed one means defaults plus an error naming its line and column, and
 * bad values are dropped with an error naming their key path.
 */
export function loadConfigFile(filePath: string): ConfigSnapshot {
  let document: TomlTable;
  try {
    document = readConfigDocument(filePath);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { filePath, document: {}, config: {}, error };
  }
  const { config, issues } = salvageConfigDocument(document);
  const first = issues[0];
  if (first === undefined) return { filePath, document, config, error: null };
  const listed = issues.map((issue) => `${issue.keyPath}: ${issue.message}`).join('; ');
  const what = issues.length === 1 ? 'a value' : 'values';
  const message = `${filePath} has ${what} Wheelhouse cannot use, ignored until fixed: ${listed}`;
  const error = new ConfigError('invalid', message, filePath, null, null, first.keyPath);
  return { filePath, document, config, error };
}

/** Parses config.toml into a document (empty when the file does not exist); throws ConfigError. */
export function readConfigDocument(filePath: string): TomlTable {
  let text: string;
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError('io', `Could not read ${filePath}: ${(error as Error).message}`, filePath);
  }
  return parseConfigText(text, filePath);
}

/**
 * Parses TOML text; a syntax error becomes a ConfigError naming the line and
 * column, followed by `consequence` (what happens because of it).
 */
export function parseConfigText(
  text: string,
  filePath: string,
  consequence = 'Wheelhouse is using default settings until it is fixed.',
): TomlTable {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '') || 'invalid TOML';
    throw new ConfigError(
      'syntax',
      `${filePath} is not valid TOML: ${reason} at line ${error.line}, column ${error.column}. ${consequence}`,
      filePath,
      error.line,
      error.column,
    );
  }
}

/**
 * Writes a document back atomically. smol-toml keeps every key and value but
 * not comments or formatting, so a file Wheelhouse writes loses its comments.
 */
export function writeConfigDocument(filePath: string, document: TomlTable): void {
  try {
    writeFileAtomic(filePath, stringify(document), 0o600);
  } catch (error) {
    throw new ConfigError('io', `Could not write ${filePath}: ${(error as Error).message}`, filePath);
  }
}
