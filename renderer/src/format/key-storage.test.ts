import { describe, expect, it } from 'vitest';
import { keyStorageWords } from './key-storage.js';

describe('where a key is kept, in words', () => {
  it('names the keychain, or the private file and its place', () => {
    expect(keyStorageWords({ kind: 'os-keychain', available: true, description: '', location: null })?.where).toBe(
      'It is kept in your system keychain, never in a settings file.',
    );
    expect(keyStorageWords({ kind: 'private-file', available: true, description: '', location: '/home/ann/.wheelhouse/api-keys.json' })).toEqual({
      where: 'This computer has no keychain, so it is kept in a file only you can read: /home/ann/.wheelhouse/api-keys.json.',
      saved: 'Saved in a file only you can read',
    });
  });

  it('has no words where keys cannot be kept', () => {
    expect(keyStorageWords({ kind: 'environment-only', available: false, description: '', location: null })).toBeNull();
    expect(keyStorageWords({ kind: 'electron-safe-storage', available: false, description: '', location: null })).toBeNull();
  });
});
