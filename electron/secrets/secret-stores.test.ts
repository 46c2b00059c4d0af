import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { createDefaultSecretStore, keyStorageChoice } from './default-secret-store.js';
import { EncryptedFileSecretStore, type SecretCipher } from './encrypted-file-secret-store.js';
import { EnvironmentOnlySecretStore } from './environment-secret-store.js';
import { PrivateFileSecretStore } from './private-file-secret-store.js';
import { KeyringSecretStore, probeKeychain } from './keyring-secret-store.js';
import { SecretStoreError } from './secret-store.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const envKeys: Record<string, string> = { deepseek: 'DEEPSEEK_API_KEY', openai: 'OPENAI_API_KEY' };
const envKeyFor = (id: string) => envKeys[id] ?? null;

/**
 * A toy cipher for the test only (XOR with a fixed byte behind a magic
 * header): enough to prove the store never writes plain text and rejects a
 * blob it cannot decrypt. The app passes Electron's safeStorage.
 */
const toyCipher: SecretCipher = {
  encrypt: (plain) => Buffer.concat([Buffer.from('TOY1'), Buffer.from(plain).map((b) => b ^ 0x5a)]),
  decrypt: (blob) => {
    const bytes = Buffer.from(blob);
    if (bytes.subarray(0, 4).toString() !== 'TOY1') throw new Error('not a toy blob');
    return Buffer.from(bytes.subarray(4).map((b) => b ^ 0x5a)).toString();
  },
};

async function failureOf(promise: Promise<unknown>): Promise<SecretStoreError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SecretStoreError) return error;
    throw error;
  }
  throw new Error('expected a SecretStoreError');
}

describe('EncryptedFileSecretStore', () => {
  const make = (file = path.join(temp.make(), 'secrets.bin'), available = true) =>
    new EncryptedFileSecretStore({ file, cipher: toyCipher, available, envKeyFor });

  it('keeps keys per provider across instances, encrypted, in a private file', async () => {
    const file = path.join(temp.make(), 'secrets.bin');
    const store = make(file);
    expect(store).toMatchObject({ kind: 'electron-safe-storage', available: true });
    expect(await store.get('deepseek')).toBeNull();
    await store.set('deepseek', 'sk-deepseek-123456');
    await store.set('openai', 'sk-openai-abcdef');
    const reopened = make(file);
    expect(await reopened.get('deepseek')).toBe('sk-deepseek-123456');
    expect(await reopened.get('openai')).toBe('sk-openai-abcdef');
    const bytes = fs.readFileSync(file);
    expect(bytes.includes('sk-deepseek-123456')).toBe(false);
    expect(bytes.includes('sk-openai-abcdef')).toBe(false);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['secrets.bin']);
  });

  it('deletes one key and leaves the others', async () => {
    const store = make();
    await store.set('deepseek', 'sk-1');
    await store.set('openai', 'sk-2');
    expect(await store.delete('deepseek')).toBe(true);
    expect(await store.delete('deepseek')).toBe(false);
    expect(await store.get('deepseek')).toBeNull();
    expect(await store.get('openai')).toBe('sk-2');
  });

  it('reports an undecryptable file, and saving a key replaces it', async () => {
    const file = path.join(temp.make(), 'secrets.bin');
    fs.writeFileSync(file, 'garbage from another machine');
    const store = make(file);
    const failure = await failureOf(store.get('deepseek'));
    expect(failure.reason).toBe('failed');
    expect(failure.message).toContain('could not decrypt');
    await store.set('deepseek', 'sk-new');
    expect(await store.get('deepseek')).toBe('sk-new');
  });

  it('refuses to save when the cipher gives no real protection', async () => {
    const file = path.join(temp.make(), 'secrets.bin');
    const store = make(file, false);
    const failure = await failureOf(store.set('deepseek', 'sk-1'));
    expect(failure).toMatchObject({ reason: 'unavailable', envKey: 'DEEPSEEK_API_KEY' });
    expect(failure.message).toContain('Set the environment variable DEEPSEEK_API_KEY');
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe('PrivateFileSecretStore', () => {
  const posix = process.platform !== 'win32';
  const make = (file = path.join(temp.make(), 'api-keys.json')) => ({ file, store: new PrivateFileSecretStore(file) });

  it('keeps keys per provider across instances in a file only the user can read, saying where', async () => {
    const { file, store } = make();
    expect(store).toMatchObject({ kind: 'private-file', available: true });
    expect(store.location()).toBe(file);
    expect(store.describe()).toContain(`a file only you can read: ${file}`);
    expect(await store.get('deepseek')).toBeNull();
    expect(fs.existsSync(file)).toBe(false);
    await store.set('deepseek', 'sk-deepseek-123456');
    await store.set('openai', 'sk-openai-abcdef');
    const reopened = new PrivateFileSecretStore(file);
    expect(await reopened.get('deepseek')).toBe('sk-deepseek-123456');
    expect(await reopened.get('openai')).toBe('sk-openai-abcdef');
    if (posix) expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Written atomically: no temp file is left beside it.
    expect(fs.readdirSync(path.dirname(file))).toEqual(['api-keys.json']);
    expect(await reopened.delete('deepseek')).toBe(true);
    expect(await reopened.delete('deepseek')).toBe(false);
    expect(await store.get('deepseek')).toBeNull();
    expect(await store.get('openai')).toBe('sk-openai-abcdef');
  });

  it.runIf(posix)('tightens a file it finds readable by others back to 0600 before reading it', async () => {
    const { file, store } = make();
    await store.set('deepseek', 'sk-1');
    fs.chmodSync(file, 0o644);
    expect(await store.get('deepseek')).toBe('sk-1');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('reports a broken file without quoting it, and saving a key replaces it', async () => {
    const { file, store } = make();
    fs.writeFileSync(file, '{"version":1,"keys":{"deepseek":"sk-half-written', { mode: 0o600 });
    const failure = await failureOf(store.get('deepseek'));
    expect(failure.reason).toBe('failed');
    expect(failure.message).toContain('is not valid JSON');
    expect(failure.message).not.toContain('sk-half');
    await store.set('deepseek', 'sk-new');
    expect(await store.get('deepseek')).toBe('sk-new');
  });

  it('refuses a file that is not a regular file (a planted link)', async () => {
    const dir = temp.make();
    const target = path.join(dir, 'elsewhere.json');
    fs.writeFileSync(target, JSON.stringify({ version: 1, keys: { deepseek: 'sk-planted' } }));
    const file = path.join(dir, 'api-keys.json');
    fs.symlinkSync(target, file);
    const failure = await failureOf(new PrivateFileSecretStore(file).get('deepseek'));
    expect(failure.message).toContain('is not a regular file');
    expect(failure.message).not.toContain('sk-planted');
  });

  it('is the store WHEELHOUSE_KEY_STORAGE=file asks for, and a wrong value is an error', async () => {
    expect(keyStorageChoice({})).toBe('auto');
    expect(keyStorageChoice({ WHEELHOUSE_KEY_STORAGE: 'file' })).toBe('file');
    expect(() => keyStorageChoice({ WHEELHOUSE_KEY_STORAGE: 'plaintext' })).toThrow(/must be "auto" or "file"/);
    const file = path.join(temp.make(), 'api-keys.json');
    const store = createDefaultSecretStore(file, 'file')(envKeyFor);
    expect(store.kind).toBe('private-file');
    await store.set('openai', 'sk-file');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, keys: { openai: 'sk-file' } });
  });
});

describe('EnvironmentOnlySecretStore', () => {
  it('holds nothing and tells the user which environment variable to set', async () => {
    const store = new EnvironmentOnlySecretStore(envKeyFor);
    expect(store).toMatchObject({ kind: 'environment-only', available: false });
    expect(await store.get('deepseek')).toBeNull();
    expect(await store.delete('deepseek')).toBe(false);
    const failure = await failureOf(store.set('openai', 'sk-1'));
    expect(failure).toMatchObject({ reason: 'unavailable', providerId: 'openai', envKey: 'OPENAI_API_KEY' });
    expect(failure.message).toContain('Set the environment variable OPENAI_API_KEY');
    expect(failure.message).not.toContain('sk-1');
    const noEnvKey = await failureOf(store.set('local', 'sk-1'));
    expect(noEnvKey.message).toContain('Configure an env_key for provider "local"');
    expect(store.describe()).toContain('environment variables');
  });
});

describe('KeyringSecretStore', () => {
  const probe = probeKeychain();

  it('says whether the OS keychain really works here, and the default store follows it once settled', async () => {
    const store = KeyringSecretStore.detect(envKeyFor);
    expect(store.kind).toBe('os-keychain');
    expect(store.available).toBe(probe.usable);
    expect(store.describe()).toContain(probe.usable ? 'stored in' : 'environment variables only');
    // The default store probes the keychain on first use, not when created; without one it keeps a private file.
    const file = path.join(temp.make(), 'api-keys.json');
    const fallback = createDefaultSecretStore(file, 'auto')(envKeyFor);
    expect(() => fallback.kind).toThrow(/before ready/);
    expect(await fallback.get('wheelhouse-test-none')).toBeNull();
    expect(fallback.kind).toBe(probe.usable ? 'os-keychain' : 'private-file');
    expect(fallback.available).toBe(true);
    expect(fallback.location()).toBe(probe.usable ? null : file);
  });

  it.runIf(process.platform === 'linux')('on Linux without a D-Bus session, does not count the kernel keyring as a keychain', () => {
    const noBus = probeKeychain('wheelhouse-test', { HOME: '/nowhere' });
    const busFile = `/run/user/${process.getuid?.() ?? 0}/bus`;
    if (fs.existsSync(busFile)) return;
    expect(noBus).toEqual({
      usable: false,
      detail: 'No D-Bus session is running, so no system keyring (Secret Service) can be reached.',
    });
  });

  it.runIf(!probe.usable)('without a usable keychain: stores nothing and names the env var', async () => {
    const store = new KeyringSecretStore(envKeyFor, probe, 'wheelhouse-test');
    expect(await store.get('deepseek')).toBeNull();
    expect(await store.delete('deepseek')).toBe(false);
    const failure = await failureOf(store.set('deepseek', 'sk-1'));
    expect(failure).toMatchObject({ reason: 'unavailable', envKey: 'DEEPSEEK_API_KEY' });
    expect(failure.message).toContain(probe.detail);
    expect(failure.message).toContain('Set the environment variable DEEPSEEK_API_KEY');
  });

  it('with a usable keychain: stores, reads and deletes a key', async (ctx) => {
    if (!probe.usable) ctx.skip(`no usable OS keychain on this machine (${probe.detail})`);
    const store = new KeyringSecretStore(envKeyFor, probe, 'wheelhouse-test');
    const providerId = `test-${randomUUID()}`;
    try {
      await store.set(providerId, 'sk-keychain');
      expect(await store.get(providerId)).toBe('sk-keychain');
    } finally {
      expect(await store.delete(providerId)).toBe(true);
    }
    expect(await store.get(providerId)).toBeNull();
  });
});
