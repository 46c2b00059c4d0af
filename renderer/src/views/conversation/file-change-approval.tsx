import { ShieldQuestion } from 'lucide-react';
import type { KeyboardEvent } from 'react';
import type { FileChangeApprovalDecision } from '../../../../shared/protocol/file-change.js';
import { useApprovalsStore } from '../../services.js';
import type { FileChangeApproval } from '../../stores/approvals-store.js';

/** The same keys as the command approval card (there is no rule to add for a patch). */
const SHORTCUTS: Readonly<Record<string, FileChangeApprovalDecision>> = {
  a: 'accept',
  t: 'acceptForSession',
  d: 'decline',
  s: 'cancel',
};

/** "Apply these changes?" below the diff it is about; answered once, here or in another window. */
export function FileChangeApprovalCard({ approval, folder }: { readonly approval: FileChangeApproval; readonly folder: string | null }) {
  const answer = useApprovalsStore((s) => s.answerFileChange);
  const choose = (decision: FileChangeApprovalDecision) => answer(approval.requestId, decision);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const decision = SHORTCUTS[event.key.toLowerCase()];
    if (!decision) return;
    event.preventDefault();
    choose(decision);
  };
  return (
    <div
      className="approval-card"
      role="group"
      aria-label="Apply these file changes?"
      data-testid="file-approval-card"
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <div className="approval-head">
        <ShieldQuestion size={15} strokeWidth={2} aria-hidden="true" />
        <span className="approval-title">Apply these changes?</span>
      </div>
      {approval.params.reason && <p className="approval-reason">Asked because {approval.params.reason}</p>}
      <div className="approval-actions">
        <button type="button" className="button button-primary" data-testid="file-approval-accept" onClick={() => choose('accept')}>
          Apply <kbd>A</kbd>
        </button>
        <button
          type="button"
          className="button button-secondary"
          data-testid="file-approval-accept-thread"
          title={`This thread's later patches inside ${folder ?? 'its folder'} apply without asking until you revoke it or Wheelhouse restarts`}
          onClick={() => choose('acceptForSession')}
        >
          Apply all in this thread <kbd>T</kbd>
        </button>
        <button type="button" className="button button-secondary" data-testid="file-approval-decline" onClick={() => choose('decline')}>
          Deny <kbd>D</kbd>
        </button>
        <button type="button" className="button button-danger" data-testid="file-approval-cancel" onClick={() => choose('cancel')}>
          Stop turn <kbd>S</kbd>
        </button>
      </div>
    </div>
  );
}
