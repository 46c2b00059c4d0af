import type { SecretStorageInfo } from '../../../shared/protocol/methods/config.js';

/** Where an API key typed in Settings is kept, said plainly (the runtime's own sentence goes in the details). */
export interface KeyStorageWords {
  /** After the key field: "It is kept in your system keychain." */
  readonly where: string;
  /** Beside a saved key: "Saved in your system keychain". */
  readonly saved: string;
}

/** The words for each way keys are kept; null when this host keeps none (keys come from environment variables). */
export function keyStorageWords(storage: SecretStorageInfo): KeyStorageWords | null {
  if (!storage.available) return null;
  switch (storage.kind) {
    case 'os-keychain':
      return { where: 'It is kept in your system keychain, never in a settings file.', saved: 'Saved in your system keychain' };
    case 'electron-safe-storage':
      return { where: 'It is kept encrypted by your system keychain, never in a settings file.', saved: 'Saved, encrypted by your system keychain' };
    case 'private-file':
      return {
        where: `This computer has no keychain, so it is kept in a file only you can read${storage.location ? `: ${storage.location}` : ''}.`,
        saved: 'Saved in a file only you can read',
      };
    case 'environment-only':
      return null;
    default:
      return storage.kind satisfies never;
  }
}
