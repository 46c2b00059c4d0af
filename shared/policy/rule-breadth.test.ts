import { describe, expect, it } from 'vitest';
import { broadRuleWarning } from './rule-breadth.js';

describe('rules broader than they look', () => {
  it('warns when an allow rule lets an interpreter, a shell or sudo run, even as one alternative', () => {
    expect(broadRuleWarning([['python3', 'pytest']], 'allow')).toBe(
      '“python3” runs any code it is given: this rule would let the agent run anything without asking.',
    );
    expect(broadRuleWarning(['bash', '-c'], 'allow')).toMatch(/“bash” runs any code/);
    expect(broadRuleWarning(['/usr/bin/sudo'], 'allow')).toMatch(/as administrator/);
    expect(broadRuleWarning(['git'], 'allow')).toMatch(/every “git” command.*“git status”/);
  });

  it('stays quiet for narrow rules and for rules that ask or forbid', () => {
    expect(broadRuleWarning(['npm', 'test'], 'allow')).toBeNull();
    expect(broadRuleWarning(['pytest'], 'allow')).toBeNull();
    expect(broadRuleWarning(['git', ['status', 'diff']], 'allow')).toBeNull();
    expect(broadRuleWarning(['python3'], 'prompt')).toBeNull();
    expect(broadRuleWarning(['sudo'], 'forbidden')).toBeNull();
  });
});
