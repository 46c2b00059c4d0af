import { safeStorage } from 'electron';
import path from 'node:path';
import { homePaths } from '../runtime/home.js';
import { EncryptedFileSecretStore } from '../secrets/encrypted-file-secret-store.js';
import { keyStorageChoice } from '../secrets/default-secret-store.js';
import { PrivateFileSecretStore } from '../secrets/private-file-secret-store.js';
import type { EnvKeyLookup, SecretStore } from '../secrets/secret-store.js';

/**
 * The desktop app's key store: API keys encrypted with the OS keychain
 * through Electron safeStorage, kept in `<home>/secrets.bin`. On Linux
 * without a keyring safeStorage falls back to a fixed password
 * ("basic_text"), which is no protection: keys then go to the home's
 * private file (mode 0600) instead, and Settings says so. A file left from
 * either store stays where it is; keys entered later go to the store in use.
 */
export function safeStorageSecretStore(home: string, envKeyFor: EnvKeyLookup): SecretStore {
  const privateFile = new PrivateFileSecretStore(homePaths(home).apiKeys);
  if (keyStorageChoice() === 'file') return privateFile;
  const encrypted = safeStorage.isEncryptionAvailable();
  const weakLinuxBackend = process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text';
  if (!encrypted || weakLinuxBackend) return privateFile;
  return new EncryptedFileSecretStore({
    file: path.join(home, 'secrets.bin'),
    cipher: {
      encrypt: (plain) => safeStorage.encryptString(plain),
      decrypt: (blob) => safeStorage.decryptString(Buffer.from(blob)),
    },
    available: true,
    envKeyFor,
  });
}
