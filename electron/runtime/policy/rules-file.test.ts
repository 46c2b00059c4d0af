import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecPolicyEngine, appendAllowRule, userRulesFile } from './home-rules.js';
import { parseRuleFile } from './rules-file.js';

const homes: string[] = [];
function makeHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-rules-'));
  homes.push(home);
  return home;
}
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe('rule files', () => {
  it('reads Codex-style prefix rules with alternatives, justification and examples', () => {
    const parsed = parseRuleFile(
      `# comment\nprefix_rule(\n  pattern = ["gh", "pr", ["view", "list"]],\n  decision = "prompt",\n  justification = 'reads PRs',\n  match = ["gh pr view 7", ["gh", "pr", "list"]],\n  not_match = ["gh pr --repo x view"],\n)\nprefix_rule(pattern = ["ls"])\n`,
      'a.rules',
    );
    expect(parsed.errors).toEqual([]);
    const text = `# comment\nprefix_rule(\n  pattern = ["gh", "pr", ["view", "list"]],\n  decision = "prompt",\n  justification = 'reads PRs',\n  match = ["gh pr view 7", ["gh", "pr", "list"]],\n  not_match = ["gh pr --repo x view"],\n)\nprefix_rule(pattern = ["ls"])\n`;
    const second = text.indexOf('prefix_rule(pattern = ["ls"])');
    expect(parsed.rules).toEqual([
      { pattern: ['gh', 'pr', ['view', 'list']], decision: 'prompt', justification: 'reads PRs', source: 'a.rules:2', location: { file: 'a.rules', line: 2, start: 10, end: second - 1 } },
      { pattern: ['ls'], decision: 'allow', justification: null, source: 'a.rules:9', location: { file: 'a.rules', line: 9, start: second, end: text.length - 1 } },
    ]);
  });

  it('reports each bad rule with file and line, and keeps the good ones', () => {
    const parsed = parseRuleFile(
      [
        'prefix_rule(pattern = ["a"], decision = "maybe")',
        'prefix_rule(pattern = [])',
        'prefix_rule(pattern = ["b"], colour = "red")',
        'prefix_rule(pattern = ["c"], match = ["d"])',
        'prefix_rule(pattern = ["ok"], decision = "forbidden")',
        'allow("x")',
        'prefix_rule(pattern = ["e"]',
      ].join('\n'),
      'bad.rules',
    );
    expect(parsed.rules.map((rule) => rule.pattern)).toEqual([['ok']]);
    expect(parsed.errors.map((error) => [error.file, error.line, error.column])).toEqual([
      ['bad.rules', 1, 41], ['bad.rules', 2, 23], ['bad.rules', 3, 30], ['bad.rules', 4, 39], ['bad.rules', 6, 1], ['bad.rules', 7, 28],
    ]);
    expect(parsed.errors[0]!.message).toMatch(/decision must be/);
    expect(parsed.errors[3]!.message).toMatch(/example "d" does not match/);
  });

  it('reports an unterminated string instead of throwing', () => {
    const parsed = parseRuleFile('prefix_rule(pattern = ["a])\n', 'x.rules');
    expect(parsed.rules).toEqual([]);
    expect(parsed.errors).toEqual([{ file: 'x.rules', line: 1, column: 24, message: 'unterminated string' }]);
  });

  it('loads every *.rules file of the home and reports their errors', async () => {
    const home = makeHome();
    fs.mkdirSync(path.join(home, 'rules'));
    fs.writeFileSync(path.join(home, 'rules', 'team.rules'), 'prefix_rule(pattern = ["cargo", "build"], decision = "allow")\n');
    fs.writeFileSync(path.join(home, 'rules', 'broken.rules'), '\n\nprefix_rule(pattern = "x")\n');
    fs.writeFileSync(path.join(home, 'rules', 'notes.txt'), 'not a rules file');
    const engine = await ExecPolicyEngine.open(home);
    expect(engine.rules.map((rule) => rule.pattern)).toEqual([['cargo', 'build']]);
    expect(engine.loadErrors).toEqual([{ file: path.join(home, 'rules', 'broken.rules'), line: 3, column: 23, message: 'pattern must be a non-empty list' }]);
    const decision = await engine.evaluate({ command: 'cargo build --release', approvalPolicy: 'untrusted', sandboxMode: 'read-only' });
    expect(decision.requirement).toMatchObject({ type: 'skip', bypassSandbox: true });
    expect(decision.matchedRule?.source).toBe(`${path.join(home, 'rules', 'team.rules')}:1`);
  });

  it('works with no rules folder at all', async () => {
    const engine = await ExecPolicyEngine.open(makeHome());
    expect(engine.rules).toEqual([]);
    expect(engine.loadErrors).toEqual([]);
  });
});

describe('accept with the proposed rule', () => {
  it('appends an allow rule atomically with mode 0600 and the engine uses it at once', async () => {
    const home = makeHome();
    const engine = await ExecPolicyEngine.open(home);
    const request = { command: 'make test', approvalPolicy: 'untrusted', sandboxMode: 'workspace-write' } as const;
    const before = (await engine.evaluate(request)).requirement;
    expect(before).toMatchObject({ type: 'needs_approval', proposedExecpolicyAmendment: ['make', 'test'] });

    await engine.acceptAmendment((before as unknown as { proposedExecpolicyAmendment: string[] }).proposedExecpolicyAmendment);
    expect((await engine.evaluate(request)).requirement).toMatchObject({ type: 'skip', bypassSandbox: true });
    expect((await engine.evaluate({ ...request, command: 'make test -j4' })).requirement.type).toBe('skip');
    expect((await engine.evaluate({ ...request, command: 'make install' })).requirement.type).toBe('needs_approval');

    const file = userRulesFile(home);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe('prefix_rule(pattern = ["make", "test"], decision = "allow")\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['default.rules']);
  });

  it('keeps what the file had, and quotes words so they read back identically', async () => {
    const home = makeHome();
    fs.mkdirSync(path.join(home, 'rules'));
    fs.writeFileSync(userRulesFile(home), '# mine\nprefix_rule(pattern = ["ls"])');
    await appendAllowRule(home, ['echo', 'say "hi"\\now']);
    const text = fs.readFileSync(userRulesFile(home), 'utf8');
    expect(text.startsWith('# mine\nprefix_rule(pattern = ["ls"])\n')).toBe(true);
    const parsed = parseRuleFile(text, 'default.rules');
    expect(parsed.errors).toEqual([]);
    expect(parsed.rules[1]!.pattern).toEqual(['echo', 'say "hi"\\now']);
  });

  it('keeps both rules when two amendments are accepted at the same time', async () => {
    const home = makeHome();
    const engine = await ExecPolicyEngine.open(home);
    await Promise.all([engine.acceptAmendment(['make', 'a']), engine.acceptAmendment(['make', 'b'])]);
    expect(engine.rules.map((rule) => rule.pattern)).toEqual([['make', 'a'], ['make', 'b']]);
  });

  it('refuses an empty amendment and writes nothing', async () => {
    const home = makeHome();
    await expect(appendAllowRule(home, [])).rejects.toThrow(/non-empty/);
    expect(fs.existsSync(userRulesFile(home))).toBe(false);
  });
});
