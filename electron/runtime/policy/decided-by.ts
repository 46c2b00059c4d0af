import path from 'node:path';
import type { ExecPolicyBuiltinRule } from '../../../shared/protocol/methods/exec-policy.js';
import type { PolicyDecidedBy } from '../../../shared/protocol/command-execution.js';
import { ALWAYS_READ_ONLY } from './command-safety.js';
import type { AskForApproval, ExecPolicyDecision, PatternToken } from './policy-vocabulary.js';

/**
 * The built-in defaults, described for the rules editor (they are code in
 * command-safety.ts and judge-command.ts, not rules a file can change; a
 * person's rule overrides all but the `forbidden` ones).
 */
export const BUILTIN_RULES: readonly ExecPolicyBuiltinRule[] = [
  {
    source: 'builtin:read-only',
    decision: 'allow',
    description: `Commands known to only read: ${[...ALWAYS_READ_ONLY].slice(0, 12).join(', ')}, …, find (without -exec/-delete), rg, sed -n, git status/log/diff/show.`,
    summary: 'only reads files',
  },
  { source: 'builtin:privilege', decision: 'prompt', description: 'sudo, doas, su, pkexec: run a command with administrator rights.', summary: 'runs as administrator' },
  { source: 'builtin:rm-force', decision: 'prompt', description: 'rm -r / rm -f: deletes without asking.', summary: 'deletes files' },
  {
    source: 'builtin:pipe-to-shell',
    decision: 'prompt',
    description: 'Code read from a pipe by a shell or interpreter (… | sh, … | python3 -).',
    summary: 'runs code piped into a shell',
  },
  {
    source: 'builtin:rm-root',
    decision: 'forbidden',
    description: 'rm -r/-f of the root folder, the home folder, a system folder or everything in them.',
    summary: 'deletes a system or home folder',
  },
  {
    source: 'builtin:recursive-root',
    decision: 'forbidden',
    description: 'chmod/chown/chgrp -R on the root, home or a system folder.',
    summary: 'changes who owns or may use a system or home folder',
  },
  { source: 'builtin:disk-format', decision: 'forbidden', description: 'mkfs, wipefs, fdisk, parted…: formats or repartitions a disk.', summary: 'erases a disk' },
  { source: 'builtin:disk-write', decision: 'forbidden', description: 'dd of=/dev/sd…, shred of a device, > /dev/sda: writes straight to a disk.', summary: 'writes straight to a disk' },
  {
    source: 'builtin:download-to-shell',
    decision: 'forbidden',
    description: 'A download run as code: curl … | sh, sh -c "$(curl …)".',
    summary: 'runs code downloaded from the internet',
  },
];

/** How each decision reads at the start of a sentence. */
const DECISION_WORDS: Readonly<Record<'allow' | 'prompt' | 'forbidden', string>> = {
  allow: 'Runs without asking',
  prompt: 'Asks first',
  forbidden: 'Blocked automatically',
};

/** What each approval mode does when no rule matched, in a sentence. */
const MODE_WORDS: Readonly<Record<string, string>> = {
  untrusted: 'this thread asks before anything not known to be safe',
  'on-request': 'this thread runs commands in its sandbox without asking',
  'on-failure': 'this thread runs commands in its sandbox, asking only if the sandbox stops one',
  never: 'this thread never asks',
  granular: 'this thread’s approval settings decide',
};

/**
 * What decided a command, for the command and approval cards: the rule
 * behind the most restrictive verdict, or (no rule matched) the approval policy.
 */
export function decidedByOf(decision: ExecPolicyDecision, approvalPolicy: AskForApproval): PolicyDecidedBy {
  const rule = decision.matchedRule;
  if (!rule) {
    const policy = typeof approvalPolicy === 'string' ? approvalPolicy : 'granular';
    return {
      kind: 'approvalPolicy',
      source: `approvalPolicy:${policy}`,
      file: null,
      line: null,
      pattern: null,
      decision: null,
      justification: null,
      label: `No rule matched: ${MODE_WORDS[policy] ?? MODE_WORDS['granular']}.`,
    };
  }
  const pattern = rule.pattern.map((token: PatternToken) => (typeof token === 'string' ? token : [...token]));
  if (rule.source.startsWith('builtin:')) {
    const builtin = BUILTIN_RULES.find((entry) => entry.source === rule.source);
    const summary = builtin?.summary ?? null;
    return {
      kind: 'builtin',
      source: rule.source,
      file: null,
      line: null,
      pattern,
      decision: rule.decision,
      justification: rule.justification,
      label: `${DECISION_WORDS[rule.decision]}: ${summary ? `it ${summary}` : 'a built-in safety rule'}.`,
      summary,
    };
  }
  const at = /^(.*):(\d+)$/.exec(rule.source);
  const file = at ? at[1]! : rule.source;
  const line = at ? Number(at[2]) : null;
  const words = pattern.map((token) => (typeof token === 'string' ? token : token.join('|'))).join(' ');
  return {
    kind: 'rule',
    source: rule.source,
    file,
    line,
    pattern,
    decision: rule.decision,
    justification: rule.justification,
    label: `${DECISION_WORDS[rule.decision]}: your rule “${words}” (${path.basename(file)}${line !== null ? `, line ${line}` : ''}).`,
  };
}

/** A command that ran without asking because the person granted "accept for session" for it. */
export function sessionGrantDecidedBy(prefix: readonly string[]): PolicyDecidedBy {
  return {
    kind: 'sessionGrant',
    source: null,
    file: null,
    line: null,
    pattern: [...prefix],
    decision: 'allow',
    justification: null,
    label: `Runs without asking: you approved “${prefix.join(' ')}” for this thread.`,
  };
}
