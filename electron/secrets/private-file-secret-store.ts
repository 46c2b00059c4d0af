import fs from 'node:fs';
import { writeFileAtomic } from '../files/atomic-write.js';
import { PRIVATE_FILE_MODE } from '../store/private-files.js';
import { SecretStoreError, type SecretStore } from './secret-store.js';

const FORMAT_VERSION = 1;
const posix = process.platform !== 'win32';

/**
 * API keys in a JSON file only the user can read (mode 0600), for machines
 * with no keychain: a headless Linux host, a desktop without a Secret
 * Service. Codex keeps its `auth.json` the same way. The file is replaced
 * atomically, its mode is checked on every read and tightened when it is
 * looser, and nothing here ever puts a key (or the file's text) in a message.
 */
export class PrivateFileSecretStore implements SecretStore {
  readonly kind = 'private-file' as const;
  readonly available = true;

  constructor(private readonly file: string) {}

  async get(providerId: string): Promise<string | null> {
    return this.readAll().get(providerId) ?? null;
  }

  async set(providerId: string, key: string): Promise<void> {
    // A file that cannot be parsed cannot be repaired, only replaced; an unreadable one is an error (see readTable).
    const table = this.readTable(providerId);
    const all = table.ok ? table.keys : new Map<string, string>();
    all.set(providerId, key);
    this.writeAll(all, providerId);
  }

  async delete(providerId: string): Promise<boolean> {
    const all = this.readAll();
    if (!all.delete(providerId)) return false;
    this.writeAll(all, providerId);
    return true;
  }

  describe(): string {
    return `This computer has no keychain Wheelhouse can use, so API keys are kept in a file only you can read: ${this.file}.`;
  }

  location(): string {
    return this.file;
  }

  private readAll(): Map<string, string> {
    const table = this.readTable(null);
    if (!table.ok) throw new SecretStoreError('failed', null, `Stored API keys are unreadable: ${table.problem}`);
    return table.keys;
  }

  /**
   * The key table; `ok: false` when the file exists but does not hold one
   * (saving a key replaces it then). A file that cannot be read, is not a
   * regular file, or belongs to someone else is an error, so that saving
   * one key never wipes the others or trusts a planted file.
   */
  private readTable(providerId: string | null): { ok: true; keys: Map<string, string> } | { ok: false; problem: string } {
    let text: string;
    try {
      const stat = fs.lstatSync(this.file);
      if (!stat.isFile()) throw this.failure(providerId, `${this.file} is not a regular file`);
      const uid = process.getuid?.();
      if (posix && uid !== undefined && stat.uid !== uid) throw this.failure(providerId, `${this.file} belongs to another user`);
      if (posix && (stat.mode & 0o077) !== 0) fs.chmodSync(this.file, PRIVATE_FILE_MODE);
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, keys: new Map() };
      throw this.failure(providerId, `could not read ${this.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // JSON.parse quotes the text it choked on, which may be a key: its message is never used.
      return { ok: false, problem: `${this.file} is not valid JSON; enter the API keys again to replace it` };
    }
    const keys = keysOf(parsed);
    return keys ? { ok: true, keys } : { ok: false, problem: `${this.file} does not hold a key table; enter the API keys again to replace it` };
  }

  private writeAll(all: Map<string, string>, providerId: string): void {
    const text = `${JSON.stringify({ version: FORMAT_VERSION, keys: Object.fromEntries(all) }, null, 2)}\n`;
    try {
      writeFileAtomic(this.file, text, PRIVATE_FILE_MODE);
    } catch (error) {
      throw this.failure(providerId, `could not write ${this.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  private failure(providerId: string | null, problem: string): SecretStoreError {
    return new SecretStoreError('failed', providerId, `Could not keep the API key: ${problem}.`);
  }
}

/** `{ version: 1, keys: { id: key } }` as a map, or null when the JSON is not that. */
function keysOf(parsed: unknown): Map<string, string> | null {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { version, keys } = parsed as { version?: unknown; keys?: unknown };
  if (version !== FORMAT_VERSION || typeof keys !== 'object' || keys === null || Array.isArray(keys)) return null;
  const all = new Map<string, string>();
  for (const [id, key] of Object.entries(keys)) if (typeof key === 'string' && key !== '') all.set(id, key);
  return all;
}
