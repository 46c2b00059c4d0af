import { safeStorage } from 'electron';
import path from 'node:path';
import { EncryptedFileSecretStore } from '../secrets/encrypted-file-secret-store.js';
import type { EnvKeyLookup } from '../secrets/secret-store.js';

/**
 * API keys encrypted with the OS keychain through Electron safeStorage, kept
 * in `<home>/secrets.bin`. On Linux without a keyring safeStorage falls back
 * to a fixed password ("basic_text"); that is not protection, so the store
 * then reports itself unavailable and Settings says so.
 */
export function safeStorageSecretStore(home: string, envKeyFor: EnvKeyLookup): EncryptedFileSecretStore {
  const encrypted = safeStorage.isEncryptionAvailable();
  const weakLinuxBackend = process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text';
  return new EncryptedFileSecretStore({
    file: path.join(home, 'secrets.bin'),
    cipher: {
      encrypt: (plain) => safeStorage.encryptString(plain),
      decrypt: (blob) => safeStorage.decryptString(Buffer.from(blob)),
    },
    available: encrypted && !weakLinuxBackend,
    envKeyFor,
  });
}
