import { describe, expect, it } from 'vitest';
import { summaryOf } from './thread-sandbox.js';

describe('the sandbox line in the conversation header', () => {
  const bubblewrap = { available: true, kind: 'bubblewrap', executable: '/usr/bin/bwrap' } as const;
  const none = { available: false, reason: 'bwrap is not installed' } as const;

  it('names the mode and the sandbox where there is one', () => {
    expect(summaryOf('workspace-write', bubblewrap)).toBe('Workspace write · sandboxed (bubblewrap)');
    expect(summaryOf('read-only', bubblewrap)).toBe('Read only · sandboxed (bubblewrap)');
    expect(summaryOf('danger-full-access', bubblewrap)).toBe('Full access · not sandboxed');
  });

  it('says plainly when the machine has no sandbox, instead of pretending', () => {
    expect(summaryOf('danger-full-access', none)).toBe('No sandbox on this machine — commands run with your full access');
    expect(summaryOf('workspace-write', none)).toBe(
      'Workspace write chosen, but there is no sandbox on this machine — commands cannot run until you choose full access',
    );
  });
});
