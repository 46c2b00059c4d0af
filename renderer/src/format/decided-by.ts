import type { PolicyDecidedBy, PolicyPatternToken, ToolCallOutcome } from '../../../shared/protocol/command-execution.js';
import { formatPattern } from './rule-pattern.js';

/** Who settled a command, in a person's words, with the technical facts kept for a details disclosure. */
export interface DecisionWords {
  /** Who decided: the person, their rule, Wheelhouse on its own, a hook; `asks` while it waits for them. */
  readonly by: 'you' | 'yourRule' | 'automatic' | 'hook' | 'asks' | 'nobody';
  /** One sentence: "You approved", "Allowed by your rule “npm test”", "Blocked automatically: it deletes files". */
  readonly line: string;
  /** The card's status for a command that did not run: "You declined", "Blocked", "Not run". */
  readonly notRun: string;
  /** Rule file and line, pattern, approval mode, hook: for the details, never the sentence. */
  readonly details: readonly (readonly [string, string])[];
}

export interface DecisionFacts {
  readonly decidedBy: PolicyDecidedBy | null | undefined;
  readonly outcome: ToolCallOutcome | null | undefined;
  /** The command waits for the person's answer now. */
  readonly waiting: boolean;
}

/** A rule's words as a person reads them: alternatives joined with "/" ("git push/fetch"). */
export function patternWords(pattern: readonly PolicyPatternToken[]): string {
  return pattern.map((token) => (typeof token === 'string' ? token : token.join('/'))).join(' ');
}

/** The approval mode of a decision the thread's settings made (`approvalPolicy:<mode>`), if that is what decided. */
function modeOf(decidedBy: PolicyDecidedBy | null | undefined): string | null {
  return decidedBy?.kind === 'approvalPolicy' && decidedBy.source?.startsWith('approvalPolicy:') ? decidedBy.source.slice('approvalPolicy:'.length) : null;
}

/** Why a command asks, after "Asks because ". */
function askReason(decidedBy: PolicyDecidedBy | null | undefined): string {
  if (decidedBy?.kind === 'rule' && decidedBy.pattern) return `your rule “${patternWords(decidedBy.pattern)}” says to ask`;
  if (decidedBy?.kind === 'builtin' && decidedBy.summary) return `it ${decidedBy.summary}`;
  if (decidedBy?.kind === 'approvalPolicy') {
    return modeOf(decidedBy) === 'untrusted' ? 'this thread asks before anything not known to be safe' : 'it wants to run outside the sandbox';
  }
  return 'this thread’s settings say to ask';
}

/** The sentence for a command that ran (or runs) without asking. */
function allowedLine(decidedBy: PolicyDecidedBy | null | undefined): { by: DecisionWords['by']; line: string } {
  switch (decidedBy?.kind) {
    case 'rule':
      return { by: 'yourRule', line: `Allowed by your rule “${patternWords(decidedBy.pattern ?? [])}”` };
    case 'builtin':
      return { by: 'automatic', line: `Allowed: it ${decidedBy.summary ?? 'is known to be safe'}` };
    case 'sessionGrant':
      return { by: 'you', line: `Allowed: you approved “${patternWords(decidedBy.pattern ?? [])}” for this thread` };
    case 'approvalPolicy':
      return { by: 'automatic', line: 'Allowed by this thread’s settings' };
    default:
      return { by: 'nobody', line: 'Allowed without asking' };
  }
}

/** The sentence for a command the policy refused without asking. */
function blockedLine(decidedBy: PolicyDecidedBy | null | undefined, reason: string | null): string {
  if (decidedBy?.decision === 'forbidden' && decidedBy.kind === 'rule') return `Blocked by your rule “${patternWords(decidedBy.pattern ?? [])}”`;
  if (decidedBy?.decision === 'forbidden' && decidedBy.kind === 'builtin') return `Blocked automatically: it ${decidedBy.summary ?? 'is known to be dangerous'}`;
  if (reason) return `Blocked automatically: ${reason}`;
  // A command that would have asked, in a thread that never asks.
  return `Blocked automatically: it would need your approval (${askReason(decidedBy)}), and this thread never asks`;
}

const PERSON_LINES: Readonly<Record<Extract<ToolCallOutcome, { by: 'person' }>['answer'], (host: string | null) => string>> = {
  approved: () => 'You approved',
  approvedForThread: () => 'You approved it for this thread',
  approvedAlways: () => 'You approved it and added a rule to always allow it',
  approvedWithNetwork: (host) => `You approved, with network access${host ? ` to ${host}` : ''}`,
  declined: () => 'You declined',
  declinedAndStopped: () => 'You declined and stopped the turn',
  deniedNetwork: (host) => `You declined network access${host ? ` to ${host}` : ''}`,
};

/** Who decided, in words, for the command and approval cards and the inbox. */
export function decisionWords(facts: DecisionFacts): DecisionWords {
  const { decidedBy, outcome, waiting } = facts;
  const details = detailsOf(decidedBy, outcome);
  if (waiting) return { by: 'asks', line: `Asks because ${askReason(decidedBy)}`, notRun: 'Not run', details };
  switch (outcome?.by) {
    case 'person': {
      const line = PERSON_LINES[outcome.answer](outcome.host);
      return { by: 'you', line, notRun: 'You declined', details };
    }
    case 'hook':
      return { by: 'hook', line: `Blocked by the hook “${outcome.hook}”: ${outcome.reason}`, notRun: 'Blocked', details };
    case 'policy':
      return { by: decidedBy?.kind === 'rule' ? 'yourRule' : 'automatic', line: blockedLine(decidedBy, outcome.reason), notRun: 'Blocked', details };
    case 'turnEnded':
      return { by: 'nobody', line: 'Not run: the turn stopped before you answered', notRun: 'Not run', details };
    case undefined:
      return { ...allowedLine(decidedBy), notRun: 'Not run', details };
    default:
      return outcome satisfies never;
  }
}

function detailsOf(decidedBy: PolicyDecidedBy | null | undefined, outcome: ToolCallOutcome | null | undefined): [string, string][] {
  const details: [string, string][] = [];
  if (decidedBy) {
    const mode = modeOf(decidedBy);
    if (decidedBy.kind === 'rule') {
      details.push(['Rule', `${formatPattern(decidedBy.pattern ?? [])} → ${decidedBy.decision ?? 'unknown'}`]);
      if (decidedBy.file) details.push(['Rules file', decidedBy.line !== null ? `${decidedBy.file}, line ${decidedBy.line}` : decidedBy.file]);
      if (decidedBy.justification) details.push(['Why the rule exists', decidedBy.justification]);
    } else if (decidedBy.kind === 'builtin') {
      details.push(['Built-in rule', `${decidedBy.source ?? 'builtin'} → ${decidedBy.decision ?? 'unknown'}`]);
    } else if (decidedBy.kind === 'sessionGrant') {
      details.push(['Approved for this thread', formatPattern(decidedBy.pattern ?? [])]);
    } else if (mode) {
      details.push(['Approval mode', `${mode} (no rule matched)`]);
    }
  }
  if (outcome?.by === 'hook') details.push(['Hook', outcome.hook]);
  return details;
}
