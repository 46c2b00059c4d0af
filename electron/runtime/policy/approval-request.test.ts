import { beforeAll, describe, expect, it } from 'vitest';
import { availableDecisions, policyPrecheckPayload } from './approval-request.js';
import { evaluateExecPolicy } from './judge-command.js';
import { loadShellParser } from './shell-parse.js';

beforeAll(async () => {
  await loadShellParser();
});

describe('approval request vocabulary', () => {
  it('offers accept-with-rule and network decisions only when they were proposed', () => {
    const withBoth = evaluateExecPolicy([], { command: 'git clone https://github.com/a/b', approvalPolicy: 'untrusted', sandboxMode: 'workspace-write' });
    expect(availableDecisions(withBoth.requirement)).toEqual([
      'accept',
      'acceptForSession',
      { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['git', 'clone', 'https://github.com/a/b'] } },
      { applyNetworkPolicyAmendment: { network_policy_amendment: { host: 'github.com', action: 'allow' } } },
      'decline',
      'cancel',
    ]);
    const plain = evaluateExecPolicy([], { command: 'sudo ls', approvalPolicy: 'untrusted', sandboxMode: 'danger-full-access' });
    expect(availableDecisions(plain.requirement)).toEqual(['accept', 'acceptForSession', 'decline', 'cancel']);
    const skip = evaluateExecPolicy([], { command: 'ls', approvalPolicy: 'untrusted', sandboxMode: 'read-only' });
    expect(availableDecisions(skip.requirement)).toEqual([]);
  });

  it('builds the seed precheck payload for hooks', () => {
    const decision = evaluateExecPolicy([], { command: 'ls && rm -rf /', approvalPolicy: 'on-request', sandboxMode: 'workspace-write' });
    expect(policyPrecheckPayload(decision, 'ls && rm -rf /', '/work', 'shell')).toEqual({
      execution_kind: 'shell',
      command: 'ls && rm -rf /',
      cwd: '/work',
      allow: false,
      requires_approval: false,
      matched_rule: 'builtin:rm-root',
      phase: 'forbidden',
      reason: '`rm` of the root folder, the home folder or everything in them',
      requirement: { type: 'forbidden', reason: '`rm` of the root folder, the home folder or everything in them' },
    });
  });
});
