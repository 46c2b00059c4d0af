import { describe, expect, it } from 'vitest';
import { accessSentence } from './thread-access.js';

describe('what a thread may do, in one sentence', () => {
  it('names both the sandbox and when it asks', () => {
    expect(accessSentence({ sandbox: 'workspace-write', approvalPolicy: 'on-request', sandboxAvailable: true })).toBe(
      'Can change files in this folder; asks before anything else',
    );
    // Every file change asks in this mode, so the sentence must not say files can be changed freely.
    expect(accessSentence({ sandbox: 'workspace-write', approvalPolicy: 'untrusted', sandboxAvailable: true })).toBe(
      'Asks before changing files or running anything new',
    );
    expect(accessSentence({ sandbox: 'read-only', approvalPolicy: 'never', sandboxAvailable: true })).toBe('Reads only; never asks');
    expect(accessSentence({ sandbox: 'danger-full-access', approvalPolicy: 'on-request', sandboxAvailable: false })).toBe(
      'Full access; runs commands without asking',
    );
  });

  it('says plainly when commands cannot run at all', () => {
    expect(accessSentence({ sandbox: 'workspace-write', approvalPolicy: 'on-request', sandboxAvailable: false })).toBe(
      'Commands cannot run: this computer has no sandbox',
    );
  });
});
