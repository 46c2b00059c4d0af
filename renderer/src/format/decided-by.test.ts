import { describe, expect, it } from 'vitest';
import type { PolicyDecidedBy } from '../../../shared/protocol/command-execution.js';
import { decisionWords, patternWords } from './decided-by.js';

const decided = (patch: Partial<PolicyDecidedBy>): PolicyDecidedBy => ({
  kind: 'rule',
  source: '/home/ann/.wheelhouse/rules/default.rules:3',
  file: '/home/ann/.wheelhouse/rules/default.rules',
  line: 3,
  pattern: ['npm', 'test'],
  decision: 'allow',
  justification: null,
  label: '',
  ...patch,
});

const rmForce = decided({ kind: 'builtin', source: 'builtin:rm-force', file: null, line: null, pattern: ['rm'], decision: 'prompt', summary: 'deletes files' });
const diskFormat = decided({ kind: 'builtin', source: 'builtin:disk-format', file: null, line: null, pattern: ['mkfs'], decision: 'forbidden', summary: 'erases a disk' });
const untrusted = decided({ kind: 'approvalPolicy', source: 'approvalPolicy:untrusted', file: null, line: null, pattern: null, decision: null });

describe('who decided a command, in words', () => {
  it('tells the person’s own answer from a block and from their rule', () => {
    const declined = decisionWords({ decidedBy: rmForce, outcome: { by: 'person', answer: 'declined', host: null }, waiting: false });
    expect([declined.line, declined.notRun, declined.by]).toEqual(['You declined', 'You declined', 'you']);
    const blocked = decisionWords({ decidedBy: diskFormat, outcome: { by: 'policy', reason: null }, waiting: false });
    expect([blocked.line, blocked.notRun, blocked.by]).toEqual(['Blocked automatically: it erases a disk', 'Blocked', 'automatic']);
    const allowed = decisionWords({ decidedBy: decided({}), outcome: null, waiting: false });
    expect([allowed.line, allowed.by]).toEqual(['Allowed by your rule “npm test”', 'yourRule']);
    expect(decisionWords({ decidedBy: rmForce, outcome: { by: 'person', answer: 'approved', host: null }, waiting: false }).line).toBe('You approved');
  });

  it('says why a waiting command asks, and what stopped one nobody answered', () => {
    expect(decisionWords({ decidedBy: rmForce, outcome: null, waiting: true }).line).toBe('Asks because it deletes files');
    expect(decisionWords({ decidedBy: untrusted, outcome: null, waiting: true }).line).toBe('Asks because this thread asks before anything not known to be safe');
    expect(decisionWords({ decidedBy: rmForce, outcome: { by: 'turnEnded' }, waiting: false }).line).toBe('Not run: the turn stopped before you answered');
    expect(decisionWords({ decidedBy: rmForce, outcome: { by: 'hook', hook: 'guard', reason: 'no deletes on Fridays' }, waiting: false }).line).toBe(
      'Blocked by the hook “guard”: no deletes on Fridays',
    );
  });

  it('keeps the technical terms out of the sentence and in the details', () => {
    const words = decisionWords({ decidedBy: untrusted, outcome: { by: 'person', answer: 'approvedForThread', host: null }, waiting: false });
    expect(words.line).toBe('You approved it for this thread');
    expect(words.line).not.toMatch(/untrusted|policy/);
    expect(words.details).toEqual([['Approval mode', 'untrusted (no rule matched)']]);
    const rule = decisionWords({ decidedBy: decided({ pattern: ['git', ['push', 'fetch']], decision: 'prompt' }), outcome: null, waiting: true });
    expect(rule.line).toBe('Asks because your rule “git push/fetch” says to ask');
    expect(rule.details).toEqual([
      ['Rule', 'git push|fetch → prompt'],
      ['Rules file', '/home/ann/.wheelhouse/rules/default.rules, line 3'],
    ]);
  });

  it('reads alternatives as a person would', () => {
    expect(patternWords(['python3', ['-m', '-c']])).toBe('python3 -m/-c');
  });
});
