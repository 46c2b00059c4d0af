import { Scale } from 'lucide-react';
import type { PolicyDecidedBy } from '../../../../shared/protocol/command-execution.js';
import './decided-by.css';

/** Which rule (or default, or the approval policy) decided a command, in the runtime's words. */
export function DecidedByLine({ decidedBy }: { readonly decidedBy: PolicyDecidedBy | null | undefined }) {
  if (!decidedBy) return null;
  return (
    <p className="decided-by" data-testid="decided-by" data-kind={decidedBy.kind} title={decidedBy.source ?? undefined}>
      <Scale size={12} strokeWidth={2} aria-hidden="true" />
      <span>
        Decided by {decidedBy.label}
        {decidedBy.justification && decidedBy.kind === 'rule' ? ` — ${decidedBy.justification}` : ''}
      </span>
    </p>
  );
}
