import fs from 'node:fs/promises';
import path from 'node:path';
import { RpcError } from '../../../shared/protocol/errors.js';
import type { ExecPolicyRuleChange, ExecPolicyRuleInput } from '../../../shared/protocol/methods/exec-policy.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { projectRulesDirectory, projectRulesFile, rulesDirectory, userRulesFile } from './home-rules.js';
import { parseRuleFile } from './rules-file.js';

/**
 * The rules editor's writes: one `prefix_rule(...)` added to `default.rules`,
 * or replaced / removed exactly where it is in its file (the rest of the file,
 * comments included, stays as written). The new text is parsed before it is
 * written; a rule that would not read back as typed is refused, and nothing
 * is written.
 */
export async function applyRuleChange(home: string, change: ExecPolicyRuleChange): Promise<void> {
  if (change.type === 'add') {
    const file = change.project ? projectRulesFile(home, change.project) : userRulesFile(home);
    const existing = await readIfExists(file);
    const separator = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
    const text = formatRule(change.rule);
    checkRuleText(text, change.rule);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomic(file, `${existing}${separator}${text}\n`, 0o600);
    return;
  }
  const file = ruleFileOf(home, change.at.file);
  const existing = await readIfExists(file);
  const rule = parseRuleFile(existing, file).rules.find((candidate) => candidate.location?.line === change.at.line);
  if (!rule?.location) {
    throw RpcError.because('rules.lineMoved', `no rule starts on line ${change.at.line} of ${file} any more (the file changed); reload the rules and try again`, {
      file,
      line: change.at.line,
    });
  }
  const { start, end } = rule.location;
  let next: string;
  if (change.type === 'update') {
    const text = formatRule(change.rule);
    checkRuleText(text, change.rule);
    next = existing.slice(0, start) + text + existing.slice(end);
  } else {
    // The rule's own line goes with it.
    const after = existing[end] === '\n' ? end + 1 : end;
    next = existing.slice(0, start) + existing.slice(after);
  }
  writeFileAtomic(file, next, 0o600);
}

/** A rule as rules-file text, in Codex's `prefix_rule` form. */
export function formatRule(rule: ExecPolicyRuleInput): string {
  const pattern = rule.pattern.map((token) => (typeof token === 'string' ? quote(token) : `[${token.map(quote).join(', ')}]`)).join(', ');
  const justification = rule.justification ? `, justification = ${quote(rule.justification)}` : '';
  return `prefix_rule(pattern = [${pattern}], decision = ${quote(rule.decision)}${justification})`;
}

function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The rule must read back exactly as typed, or it is not written. */
function checkRuleText(text: string, rule: ExecPolicyRuleInput): void {
  const parsed = parseRuleFile(text, 'new rule');
  const read = parsed.rules[0];
  const same =
    parsed.errors.length === 0 &&
    parsed.rules.length === 1 &&
    read !== undefined &&
    JSON.stringify(read.pattern) === JSON.stringify(rule.pattern) &&
    read.decision === rule.decision &&
    read.justification === (rule.justification || null);
  if (!same) {
    const why = parsed.errors[0]?.message ?? 'it does not read back as typed';
    throw RpcError.because('rules.invalidRule', `the rule cannot be written: ${why}`, { rule: text });
  }
}

/** A rules file the editor may change: a `*.rules` file directly in the rules folder or its projects' folder. */
function ruleFileOf(home: string, file: string): string {
  const directory = rulesDirectory(home);
  const resolved = path.resolve(directory, file);
  const folder = path.dirname(resolved);
  if ((folder !== directory && folder !== projectRulesDirectory(home)) || !resolved.endsWith('.rules')) {
    throw RpcError.because('rules.notRulesFile', `not a rules file of this home: ${file} (rules files are ${directory}/*.rules)`, { file });
  }
  return resolved;
}

async function readIfExists(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
