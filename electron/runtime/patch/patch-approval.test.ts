import { describe, expect, it } from 'vitest';
import type { AskForApproval, SandboxMode } from '../policy/policy-vocabulary.js';
import { patchRequirement } from './patch-approval.js';

/** Whether a patch applies unasked, asks, or is refused, for each approval policy and sandbox (the table in docs/patches.md). */
describe('patch approval requirement', () => {
  const granular = (sandboxApproval: boolean): AskForApproval => ({ granular: { rules: true, sandbox_approval: sandboxApproval, mcp_elicitations: true } });
  const cases: [AskForApproval, SandboxMode, boolean, 'apply' | 'ask' | 'refuse'][] = [
    ['untrusted', 'workspace-write', true, 'ask'],
    ['untrusted', 'danger-full-access', true, 'ask'],
    ['untrusted', 'read-only', true, 'ask'],
    ['on-request', 'workspace-write', true, 'apply'],
    ['on-failure', 'workspace-write', true, 'apply'],
    ['never', 'workspace-write', true, 'apply'],
    [granular(false), 'workspace-write', true, 'apply'],
    ['on-request', 'danger-full-access', false, 'apply'],
    ['never', 'danger-full-access', false, 'apply'],
    ['on-request', 'read-only', true, 'ask'],
    ['on-failure', 'read-only', true, 'ask'],
    [granular(true), 'read-only', true, 'ask'],
    [granular(false), 'read-only', true, 'refuse'],
    ['never', 'read-only', true, 'refuse'],
    ['on-request', 'workspace-write', false, 'ask'],
    ['never', 'workspace-write', false, 'refuse'],
  ];
  it.each(cases)('%j in %s (inside: %s) -> %s', (approvalPolicy, sandbox, insideWorkspace, expected) => {
    expect(patchRequirement({ approvalPolicy, sandbox, insideWorkspace }).type).toBe(expected);
  });

  it('on another machine, which the sandbox does not reach: asks naming it, applies with full access, refused where the thread never asks', () => {
    const elsewhere = 'Build box';
    expect(patchRequirement({ approvalPolicy: 'on-request', sandbox: 'workspace-write', insideWorkspace: false, elsewhere })).toEqual({
      type: 'ask',
      reason: 'the patch changes files on Build box, which this computer’s sandbox does not reach',
    });
    expect(patchRequirement({ approvalPolicy: 'on-request', sandbox: 'danger-full-access', insideWorkspace: false, elsewhere }).type).toBe('apply');
    expect(patchRequirement({ approvalPolicy: 'never', sandbox: 'workspace-write', insideWorkspace: false, elsewhere })).toMatchObject({ type: 'refuse', reason: expect.stringContaining('on Build box') });
  });
});
