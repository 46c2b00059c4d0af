import path from 'node:path';
import type { ExecPolicyBuiltinRule } from '../../../shared/protocol/methods/exec-policy.js';
import type { PolicyDecidedBy } from '../../../shared/protocol/command-execution.js';
import { ALWAYS_READ_ONLY } from './command-safety.js';
import type { AskForApproval, ExecPolicyDecision, PatternToken } from './policy-types.js';

/**
 * The built-in defaults, described for the rules editor (they are code in
 * command-safety.ts and exec-policy.ts, not rules a file can change; a
 * person's rule overrides all but the `forbidden` ones).
 */
export const BUILTIN_RULES: readonly ExecPolicyBuiltinRule[] = [
  {
    source: 'builtin:read-only',
    decision: 'allow',
    description: `Commands known to only read: ${[...ALWAYS_READ_ONLY].slice(0, 12).join(', ')}, …, find (without -exec/-delete), rg, sed -n, git status/log/diff/show.`,
  },
  { source: 'builtin:privilege', decision: 'prompt', description: 'sudo, doas, su, pkexec: run a command with administrator rights.' },
  { source: 'builtin:rm-force', decision: 'prompt', description: 'rm -r / rm -f: deletes without asking.' },
  { source: 'builtin:pipe-to-shell', decision: 'prompt', description: 'Code read from a pipe by a shell or interpreter (… | sh, … | python3 -).' },
  { source: 'builtin:rm-root', decision: 'forbidden', description: 'rm -r/-f of the root folder, the home folder, a system folder or everything in them.' },
  { source: 'builtin:recursive-root', decision: 'forbidden', description: 'chmod/chown/chgrp -R on the root, home or a system folder.' },
  { source: 'builtin:disk-format', decision: 'forbidden', description: 'mkfs, wipefs, fdisk, parted…: formats or repartitions a disk.' },
  { source: 'builtin:disk-write', decision: 'forbidden', description: 'dd of=/dev/sd…, shred of a device, > /dev/sda: writes straight to a disk.' },
  { source: 'builtin:download-to-shell', decision: 'forbidden', description: 'A download run as code: curl … | sh, sh -c "$(curl …)".' },
];

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
      source: null,
      file: null,
      line: null,
      pattern: null,
      decision: null,
      justification: null,
      label: `approval policy “${policy}” (no rule matched)`,
    };
  }
  const pattern = rule.pattern.map((token: PatternToken) => (typeof token === 'string' ? token : [...token]));
  if (rule.source.startsWith('builtin:')) {
    const builtin = BUILTIN_RULES.find((entry) => entry.source === rule.source);
    return {
      kind: 'builtin',
      source: rule.source,
      file: null,
      line: null,
      pattern,
      decision: rule.decision,
      justification: rule.justification,
      label: `built-in default: ${builtin?.description ?? rule.source}`,
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
    label: `rule “${words}” → ${rule.decision} (${path.basename(file)}${line !== null ? `:${line}` : ''})`,
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
    label: `approved for this thread (“${prefix.join(' ')}”)`,
  };
}
