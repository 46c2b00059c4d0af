import type { AskForApproval, SandboxMode } from '../../../shared/protocol/thread.js';

/** What a thread's sandbox and approval mode let the agent do, as one sentence. */
export function accessSentence(state: { readonly sandbox: SandboxMode; readonly approvalPolicy: AskForApproval; readonly sandboxAvailable: boolean }): string {
  const { sandbox, approvalPolicy, sandboxAvailable } = state;
  if (!sandboxAvailable && sandbox !== 'danger-full-access') return 'Commands cannot run: this computer has no sandbox';
  if (sandbox === 'danger-full-access') {
    return approvalPolicy === 'untrusted' ? 'Full access; asks before anything not known to be safe' : 'Full access; runs commands without asking';
  }
  const can = sandbox === 'read-only' ? 'Reads only' : 'Can change files in this folder';
  switch (approvalPolicy) {
    case 'untrusted':
      return sandbox === 'read-only' ? 'Reads only; asks before anything else' : 'Asks before changing files or running anything new';
    case 'on-request':
      return `${can}; asks before anything else`;
    case 'on-failure':
      return `${can}; asks if the sandbox blocks something`;
    case 'never':
      return `${can}; never asks`;
    default:
      return approvalPolicy satisfies never;
  }
}
