import { beforeAll, describe, expect, it } from 'vitest';
import { decideSandboxDenialRetry } from './approval-modes.js';
import { evaluateExecPolicy } from './judge-command.js';
import type { AskForApproval, SandboxMode } from './policy-vocabulary.js';
import { parseRuleFile } from './rules-file.js';
import { loadShellParser } from './shell-parse.js';

beforeAll(async () => {
  await loadShellParser();
});

const rules = parseRuleFile('prefix_rule(pattern = ["git", "push"], decision = "prompt")\nprefix_rule(pattern = ["make"], decision = "allow")', 'test.rules').rules;
const granular = (rulesPrompts: boolean, sandboxPrompts: boolean): AskForApproval => ({
  granular: { rules: rulesPrompts, sandbox_approval: sandboxPrompts, mcp_elicitations: true },
});

function requirementType(command: string, approvalPolicy: AskForApproval, sandboxMode: SandboxMode, requireEscalated = false) {
  return evaluateExecPolicy(rules, { command, approvalPolicy, sandboxMode, requireEscalated }).requirement;
}

// [command, mode, sandbox, escalated, expected]
const MODES: readonly [string, AskForApproval, SandboxMode, boolean, string][] = [
  // A read-only command runs everywhere without asking.
  ['git status', 'untrusted', 'read-only', false, 'skip'],
  ['git status', 'never', 'read-only', false, 'skip'],
  ['git status', 'on-request', 'workspace-write', true, 'skip'],
  // An unknown command: untrusted asks; the others run it in the sandbox.
  ['cargo build', 'untrusted', 'workspace-write', false, 'needs_approval'],
  ['cargo build', 'untrusted', 'danger-full-access', false, 'needs_approval'],
  ['cargo build', 'on-failure', 'workspace-write', false, 'skip'],
  ['cargo build', 'on-request', 'workspace-write', false, 'skip'],
  ['cargo build', 'on-request', 'read-only', false, 'skip'],
  ['cargo build', 'on-request', 'danger-full-access', false, 'skip'],
  ['cargo build', 'never', 'workspace-write', false, 'skip'],
  ['cargo build', granular(true, true), 'workspace-write', false, 'skip'],
  // Escalation (run outside the sandbox) is asked for, or refused where asking is not allowed.
  ['cargo build', 'on-request', 'workspace-write', true, 'needs_approval'],
  ['cargo build', 'on-failure', 'read-only', true, 'needs_approval'],
  ['cargo build', 'never', 'workspace-write', true, 'forbidden'],
  ['cargo build', granular(true, false), 'workspace-write', true, 'forbidden'],
  ['cargo build', granular(false, true), 'workspace-write', true, 'needs_approval'],
  ['cargo build', 'on-request', 'danger-full-access', true, 'skip'],
  // A prompt rule asks in every mode that may ask, and is refused where it may not.
  ['git push', 'untrusted', 'workspace-write', false, 'needs_approval'],
  ['git push', 'on-request', 'danger-full-access', false, 'needs_approval'],
  ['git push', 'on-failure', 'workspace-write', false, 'needs_approval'],
  // Under never nothing is asked: what is not forbidden runs in the thread's sandbox.
  ['git push', 'never', 'workspace-write', false, 'skip'],
  ['git push', granular(false, true), 'workspace-write', false, 'forbidden'],
  ['git push', granular(true, false), 'workspace-write', false, 'needs_approval'],
  // Scripts that do not parse are asked about like a prompt rule (and run unasked under never).
  ['cat <(ls)', 'on-request', 'danger-full-access', false, 'needs_approval'],
  ['cat <(ls)', 'never', 'danger-full-access', false, 'skip'],
  ['for i in 1 2; do echo $i; done', 'never', 'danger-full-access', false, 'skip'],
  ['git push', 'never', 'workspace-write', true, 'forbidden'],
  // Forbidden stays forbidden in every mode.
  ['rm -rf /', 'never', 'danger-full-access', false, 'forbidden'],
  ['rm -rf /', 'on-request', 'danger-full-access', false, 'forbidden'],
  // A user allow rule runs the command unasked, outside the sandbox.
  ['make all', 'untrusted', 'read-only', false, 'skip'],
  ['make all', 'never', 'read-only', true, 'skip'],
];

describe('approval modes × sandbox modes', () => {
  it.each(MODES)('%j under %j / %s (escalated %s) → %s', (command, mode, sandbox, escalated, expected) => {
    expect(requirementType(command, mode, sandbox, escalated).type).toBe(expected);
  });

  it('runs user-allowed commands outside the sandbox and built-in read-only ones inside it', () => {
    expect(requirementType('make all', 'untrusted', 'read-only')).toMatchObject({ type: 'skip', bypassSandbox: true });
    expect(requirementType('ls', 'untrusted', 'read-only')).toMatchObject({ type: 'skip', bypassSandbox: false });
    expect(requirementType('make all && ls', 'untrusted', 'read-only')).toMatchObject({ type: 'skip', bypassSandbox: false });
  });

  it('runs what would have been asked under never inside the sandbox, and says so', () => {
    const requirement = requirementType('git push', 'never', 'workspace-write');
    expect(requirement).toMatchObject({ type: 'skip', bypassSandbox: false });
    expect((requirement as { reason: string }).reason).toMatch(/"never", so it runs in the workspace-write sandbox without asking/);
  });

  it('asks before retrying a sandbox denial without the sandbox, except where asking is refused', () => {
    expect(decideSandboxDenialRetry('on-failure', 'cargo build').type).toBe('needs_approval');
    expect(decideSandboxDenialRetry('on-request', 'cargo build').type).toBe('needs_approval');
    expect(decideSandboxDenialRetry('untrusted', 'cargo build').type).toBe('needs_approval');
    expect(decideSandboxDenialRetry('never', 'cargo build').type).toBe('forbidden');
    expect(decideSandboxDenialRetry(granular(true, false), 'cargo build').type).toBe('forbidden');
  });
});
