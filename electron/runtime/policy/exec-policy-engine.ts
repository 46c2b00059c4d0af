import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { evaluateExecPolicy } from './exec-policy.js';
import type { ExecPolicyDecision, ExecPolicyRequest, PrefixRule, RuleFileError } from './policy-types.js';
import { formatAllowRule, parseRuleFile } from './rules-file.js';
import { loadShellParser } from './shell-parse.js';

/** Rule files live in `<home>/rules/*.rules`; accepted amendments go to `default.rules`, as in Codex. */
export function rulesDirectory(home: string): string {
  return path.join(home, 'rules');
}

export function userRulesFile(home: string): string {
  return path.join(rulesDirectory(home), 'default.rules');
}

export interface LoadedRules {
  readonly rules: readonly PrefixRule[];
  readonly errors: readonly RuleFileError[];
}

/** Reads every `*.rules` file (sorted by name). Unreadable files and bad rules are reported, never thrown. */
export async function loadRuleFiles(home: string): Promise<LoadedRules> {
  const directory = rulesDirectory(home);
  let names: string[];
  try {
    names = (await fs.readdir(directory)).filter((name) => name.endsWith('.rules')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [], errors: [] };
    return { rules: [], errors: [{ file: directory, line: 0, message: `cannot list the rules folder: ${(error as Error).message}` }] };
  }
  const rules: PrefixRule[] = [];
  const errors: RuleFileError[] = [];
  for (const name of names) {
    const file = path.join(directory, name);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      errors.push({ file, line: 0, message: `cannot read: ${(error as Error).message}` });
      continue;
    }
    const parsed = parseRuleFile(text, file);
    rules.push(...parsed.rules);
    errors.push(...parsed.errors);
  }
  return { rules, errors };
}

/**
 * The exec policy of one Wheelhouse home: the rule files plus the built-in
 * defaults. `evaluate` is synchronous and pure; `reload` re-reads the files.
 */
export class ExecPolicyEngine {
  private loaded: LoadedRules = { rules: [], errors: [] };
  /** Amendments are read-modify-write of one file: one at a time, or one would lose the other. */
  private amendments: Promise<void> = Promise.resolve();

  private constructor(readonly home: string) {}

  static async open(home: string): Promise<ExecPolicyEngine> {
    await loadShellParser();
    const engine = new ExecPolicyEngine(home);
    await engine.reload();
    return engine;
  }

  get rules(): readonly PrefixRule[] {
    return this.loaded.rules;
  }

  /** Problems found in the rule files (`file`, `line`, `message`); the rules around them still apply. */
  get loadErrors(): readonly RuleFileError[] {
    return this.loaded.errors;
  }

  async reload(): Promise<void> {
    this.loaded = await loadRuleFiles(this.home);
  }

  evaluate(request: ExecPolicyRequest): ExecPolicyDecision {
    return evaluateExecPolicy(this.loaded.rules, request);
  }

  /**
   * "Accept with the proposed rule": appends `prefix_rule(pattern = prefix, decision = "allow")`
   * to `<home>/rules/default.rules` (atomically, mode 0600) and reloads, so the next
   * evaluation already uses it.
   */
  acceptAmendment(prefix: readonly string[]): Promise<void> {
    const next = this.amendments.then(async () => {
      await appendAllowRule(this.home, prefix);
      await this.reload();
    });
    this.amendments = next.catch(() => undefined);
    return next;
  }
}

/** Appends an allow rule for `prefix` to the user's rules file; the file is replaced in one step. */
export async function appendAllowRule(home: string, prefix: readonly string[]): Promise<string> {
  if (prefix.length === 0 || prefix.some((token) => typeof token !== 'string' || token.length === 0 || token.includes('\n'))) {
    throw new TypeError('an execpolicy amendment needs a non-empty list of non-empty single-line words');
  }
  const file = userRulesFile(home);
  let existing = '';
  try {
    existing = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const separator = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
  await fs.mkdir(rulesDirectory(home), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, existing + separator + formatAllowRule(prefix), 0o600);
  return file;
}
