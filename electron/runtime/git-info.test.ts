import { describe, expect, it } from 'vitest';
import { withoutCredentials } from './git-info.js';

describe('origin URLs', () => {
  it('never keep a token or user name embedded in an https remote', () => {
    expect(withoutCredentials('https://x-access-token:ghp_secret@github.com/acme/app.git')).toBe('https://github.com/acme/app.git');
    expect(withoutCredentials('https://github.com/acme/app.git')).toBe('https://github.com/acme/app.git');
    expect(withoutCredentials('git@github.com:acme/app.git')).toBe('git@github.com:acme/app.git');
  });
});
