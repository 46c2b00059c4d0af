import { CircleSlash, ScrollText, ShieldCheck, ShieldQuestion, ShieldX, UserCheck, Webhook, type LucideIcon } from 'lucide-react';
import type { PolicyDecidedBy, ToolCallOutcome } from '../../../../shared/protocol/command-execution.js';
import { decisionWords, type DecisionWords } from '../../format/decided-by.js';
import { InlineCode } from '../common/inline-code.js';
import './decided-by.css';

const ICONS: Readonly<Record<DecisionWords['by'], LucideIcon>> = {
  you: UserCheck,
  yourRule: ScrollText,
  automatic: ShieldCheck,
  hook: Webhook,
  asks: ShieldQuestion,
  nobody: CircleSlash,
};

/**
 * Who decided a command, in one plain sentence ("You approved", "Blocked
 * automatically: it deletes files", "Allowed by your rule “npm test”"); the
 * rule file, pattern and approval mode sit in a Details disclosure.
 */
export function DecidedByLine({
  decidedBy,
  outcome = null,
  waiting = false,
  policyReason = null,
}: {
  readonly decidedBy: PolicyDecidedBy | null | undefined;
  readonly outcome?: ToolCallOutcome | null | undefined;
  readonly waiting?: boolean;
  /** The policy engine's own reason (quotes the command), for the details. */
  readonly policyReason?: string | null;
}) {
  if (!decidedBy && !outcome) return null;
  const words = decisionWords({ decidedBy, outcome, waiting });
  const blocked = outcome?.by === 'policy' || outcome?.by === 'hook';
  const Icon = blocked ? ShieldX : ICONS[words.by];
  const details = policyReason ? [...words.details, ['How the command was read', policyReason] as const] : words.details;
  return (
    <div className="decided-by" data-testid="decided-by" data-by={words.by} data-blocked={blocked || undefined}>
      <p className="decided-by-line">
        <Icon size={13} strokeWidth={2} aria-hidden="true" />
        <span data-testid="decided-by-text">{words.line}</span>
      </p>
      {details.length > 0 && (
        <details className="decided-by-details" data-testid="decided-by-details">
          <summary>Details</summary>
          <dl>
            {details.map(([term, value]) => (
              <div key={term} className="decided-by-detail">
                <dt>{term}</dt>
                <dd>
                  <InlineCode text={value} />
                </dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}
