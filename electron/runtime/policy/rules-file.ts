import type { PatternToken, PrefixRule, RuleDecision, RuleFileError } from './policy-vocabulary.js';

/**
 * Reads rule files written in the subset of Starlark that Codex's execpolicy
 * uses, so a Codex `default.rules` works unchanged:
 *
 *   prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt",
 *               justification = "talks to the remote",
 *               match = ["git push origin main"], not_match = ["git status"])
 *
 * Only `prefix_rule(...)` calls with keyword arguments, string and list
 * literals, and `#` comments are accepted. An error names its file and line
 * and skips that one rule; the rest of the file still loads.
 */

/** Where a token starts: line and column (1-based) and its text offsets, so an editor can replace one rule. */
interface At {
  line: number;
  column: number;
  offset: number;
  end: number;
}

type Token =
  | ({ kind: 'ident'; value: string } & At)
  | ({ kind: 'string'; value: string } & At)
  | ({ kind: 'punct'; value: '(' | ')' | '[' | ']' | ',' | '=' } & At)
  | ({ kind: 'end' } & At);

class RuleSyntaxError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(at: { line: number; column: number }, message: string) {
    super(message);
    this.line = at.line;
    this.column = at.column;
  }
}

export interface ParsedRuleFile {
  readonly rules: readonly PrefixRule[];
  readonly errors: readonly RuleFileError[];
}

const DECISIONS: readonly RuleDecision[] = ['allow', 'prompt', 'forbidden'];
const KNOWN_ARGUMENTS = new Set(['pattern', 'decision', 'justification', 'match', 'not_match']);

export function parseRuleFile(text: string, file: string): ParsedRuleFile {
  const rules: PrefixRule[] = [];
  const errors: RuleFileError[] = [];
  let tokens: Token[];
  try {
    tokens = tokenize(text);
  } catch (error) {
    if (!(error instanceof RuleSyntaxError)) throw error;
    return { rules, errors: [{ file, line: error.line, column: error.column, message: error.message }] };
  }
  let index = 0;
  while (tokens[index]!.kind !== 'end') {
    const start = tokens[index]!;
    const startIndex = index;
    try {
      const parser = new CallParser(tokens, index);
      const call = parser.call();
      index = parser.index;
      const end = tokens[index - 1]!.end;
      rules.push({ ...toRule(call, `${file}:${start.line}`), location: { file, line: start.line, start: start.offset, end } });
    } catch (error) {
      if (!(error instanceof RuleSyntaxError)) throw error;
      errors.push({ file, line: error.line, column: error.column, message: error.message });
      // Resume at the next statement so one bad rule does not hide the others.
      index = Math.max(index, startIndex + 1);
      while (!isStatementStart(tokens[index]!)) index += 1;
    }
  }
  return { rules, errors };
}

function isStatementStart(token: Token): boolean {
  return token.kind === 'end' || (token.kind === 'ident' && token.value === 'prefix_rule');
}

type Value = ({ kind: 'string'; value: string } & At) | ({ kind: 'list'; items: Value[] } & At);

interface Call {
  readonly at: At;
  readonly args: Map<string, Value>;
}

class CallParser {
  constructor(
    private readonly tokens: Token[],
    public index: number,
  ) {}

  call(): Call {
    const name = this.next();
    if (name.kind !== 'ident' || name.value !== 'prefix_rule') {
      throw new RuleSyntaxError(name, `expected prefix_rule(...), found ${describe(name)}`);
    }
    this.expect('(');
    const args = new Map<string, Value>();
    while (!this.peekPunct(')')) {
      const key = this.next();
      if (key.kind !== 'ident') throw new RuleSyntaxError(key, `expected an argument name, found ${describe(key)}`);
      if (!KNOWN_ARGUMENTS.has(key.value)) throw new RuleSyntaxError(key, `unknown argument "${key.value}"`);
      if (args.has(key.value)) throw new RuleSyntaxError(key, `argument "${key.value}" given twice`);
      this.expect('=');
      args.set(key.value, this.value());
      if (!this.peekPunct(')')) this.expect(',');
    }
    this.expect(')');
    return { at: name, args };
  }

  private value(): Value {
    const token = this.next();
    if (token.kind === 'string') return token;
    if (token.kind === 'punct' && token.value === '[') {
      const items: Value[] = [];
      while (!this.peekPunct(']')) {
        items.push(this.value());
        if (!this.peekPunct(']')) this.expect(',');
      }
      this.expect(']');
      return { ...token, kind: 'list', items };
    }
    throw new RuleSyntaxError(token, `expected a string or a list, found ${describe(token)}`);
  }

  private next(): Token {
    const token = this.tokens[this.index]!;
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private peekPunct(value: string): boolean {
    const token = this.tokens[this.index]!;
    return token.kind === 'punct' && token.value === value;
  }

  private expect(value: string): void {
    const token = this.next();
    if (token.kind !== 'punct' || token.value !== value) throw new RuleSyntaxError(token, `expected "${value}", found ${describe(token)}`);
  }
}

function toRule(call: Call, source: string): PrefixRule {
  const patternValue = call.args.get('pattern');
  if (!patternValue) throw new RuleSyntaxError(call.at, 'prefix_rule needs a pattern');
  if (patternValue.kind !== 'list' || patternValue.items.length === 0) {
    throw new RuleSyntaxError(patternValue, 'pattern must be a non-empty list');
  }
  const pattern: PatternToken[] = patternValue.items.map((item) => {
    if (item.kind === 'string') return item.value;
    if (item.items.length === 0 || item.items.some((alternative) => alternative.kind !== 'string')) {
      throw new RuleSyntaxError(item, 'alternatives in a pattern must be a non-empty list of strings');
    }
    return item.items.map((alternative) => (alternative as { value: string }).value);
  });
  const decisionValue = call.args.get('decision');
  let decision: RuleDecision = 'allow';
  if (decisionValue) {
    if (decisionValue.kind !== 'string' || !DECISIONS.includes(decisionValue.value as RuleDecision)) {
      throw new RuleSyntaxError(decisionValue, 'decision must be "allow", "prompt" or "forbidden"');
    }
    decision = decisionValue.value as RuleDecision;
  }
  const justificationValue = call.args.get('justification');
  if (justificationValue && justificationValue.kind !== 'string') {
    throw new RuleSyntaxError(justificationValue, 'justification must be a string');
  }
  const rule: PrefixRule = { pattern, decision, justification: justificationValue?.value ?? null, source };
  // `match` / `not_match` are the rule's own examples, checked as it loads, as Codex does.
  checkExamples(rule, call.args.get('match'), true);
  checkExamples(rule, call.args.get('not_match'), false);
  return rule;
}

function checkExamples(rule: PrefixRule, examples: Value | undefined, shouldMatch: boolean): void {
  if (!examples) return;
  if (examples.kind !== 'list') throw new RuleSyntaxError(examples, `${shouldMatch ? 'match' : 'not_match'} must be a list`);
  for (const example of examples.items) {
    const argv = example.kind === 'string' ? example.value.split(/\s+/).filter(Boolean) : example.items.map((item) => (item.kind === 'string' ? item.value : ''));
    if (patternMatches(rule.pattern, argv) !== shouldMatch) {
      throw new RuleSyntaxError(example, `example "${argv.join(' ')}" ${shouldMatch ? 'does not match' : 'matches'} the pattern`);
    }
  }
}

/** True when `argv` starts with the pattern (each position equal to the literal or one of the alternatives). */
export function patternMatches(pattern: readonly PatternToken[], argv: readonly string[]): boolean {
  if (argv.length < pattern.length) return false;
  return pattern.every((token, position) => (typeof token === 'string' ? argv[position] === token : token.includes(argv[position]!)));
}

/** The text of a rule file entry that allows `prefix`, as appended by "accept with the proposed rule". */
export function formatAllowRule(prefix: readonly string[]): string {
  return `prefix_rule(pattern = [${prefix.map((token) => JSON.stringify(token)).join(', ')}], decision = "allow")\n`;
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let lineStart = 0;
  let index = 0;
  const here = (offset: number) => ({ line, column: offset - lineStart + 1, offset });
  while (index < text.length) {
    const char = text[index]!;
    if (char === '\n') {
      index += 1;
      line += 1;
      lineStart = index;
    } else if (char === ' ' || char === '\t' || char === '\r') {
      index += 1;
    } else if (char === '#') {
      while (index < text.length && text[index] !== '\n') index += 1;
    } else if ('()[],='.includes(char)) {
      tokens.push({ kind: 'punct', value: char as '(' | ')' | '[' | ']' | ',' | '=', ...here(index), end: index + 1 });
      index += 1;
    } else if (char === '"' || char === "'") {
      const start = here(index);
      let value = '';
      index += 1;
      while (true) {
        const next = text[index];
        if (next === undefined || next === '\n') throw new RuleSyntaxError(start, 'unterminated string');
        index += 1;
        if (next === char) break;
        if (next === '\\') {
          const escaped = text[index];
          const escapeAt = here(index - 1);
          index += 1;
          const simple: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'" };
          if (escaped === undefined || !(escaped in simple)) throw new RuleSyntaxError(escapeAt, `unsupported escape \\${escaped ?? ''}`);
          value += simple[escaped];
        } else {
          value += next;
        }
      }
      tokens.push({ kind: 'string', value, ...start, end: index });
    } else if (/[A-Za-z_]/.test(char)) {
      IDENTIFIER.lastIndex = index;
      const match = IDENTIFIER.exec(text)!;
      tokens.push({ kind: 'ident', value: match[0], ...here(index), end: index + match[0].length });
      index += match[0].length;
    } else {
      throw new RuleSyntaxError(here(index), `unexpected character "${char}"`);
    }
  }
  tokens.push({ kind: 'end', ...here(index), end: index });
  return tokens;
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'the end of the file';
  if (token.kind === 'string') return `the string ${JSON.stringify(token.value)}`;
  return `"${token.value}"`;
}
