import { describe, expect, it } from 'vitest';
import { summaryOf } from './thread-sandbox.js';

describe('the sandbox line in the conversation header', () => {
  const bubblewrap = { available: true, kind: 'bubblewrap', executable: '/usr/bin/bwrap', isolation: { userNamespace: true, ownProc: true }, note: null } as const;
  const noUserNamespace = {
    ...bubblewrap,
    isolation: { userNamespace: false, ownProc: true },
    note: 'User namespaces are unavailable here, so commands run in your own user namespace with every capability dropped.',
  } as const;
  const none = { available: false, reason: 'bwrap is not installed' } as const;

  it('names the mode and the sandbox where there is one', () => {
    expect(summaryOf('workspace-write', bubblewrap)).toBe('Workspace write · sandboxed (bubblewrap)');
    expect(summaryOf('read-only', bubblewrap)).toBe('Read only · sandboxed (bubblewrap)');
    expect(summaryOf('danger-full-access', bubblewrap)).toBe('Full access · not sandboxed');
  });

  it('says when the sandbox is weaker than usual here (the settings show why)', () => {
    expect(summaryOf('workspace-write', noUserNamespace)).toBe('Workspace write · sandboxed (bubblewrap, limited here)');
    expect(summaryOf('danger-full-access', noUserNamespace)).toBe('Full access · not sandboxed');
  });

  it('says plainly when the machine has no sandbox, instead of pretending', () => {
    expect(summaryOf('danger-full-access', none)).toBe('No sandbox on this machine — commands run with your full access');
    expect(summaryOf('workspace-write', none)).toBe(
      'Workspace write chosen, but there is no sandbox on this machine — commands cannot run until you choose full access',
    );
  });
});
