import type { FileChangeApprovalDecision } from '../../../../shared/protocol/file-change.js';
import { useApprovalsStore } from '../../services/services.js';
import type { FileChangeApproval } from '../../stores/approvals-store.js';
import { patchReasonParts } from '../../stores/approval-requests.js';
import { AnswerFailure } from '../approvals/answer-failure.js';
import { ApprovalCardFrame } from './approval-card-frame.js';

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
  // The files are in the diff right above; only why it asks is said here.
  const { why } = patchReasonParts(approval.params.reason);
  return (
    <ApprovalCardFrame
      label="Apply these file changes?"
      title="Apply these changes?"
      testId="file-approval-card"
      shortcuts={SHORTCUTS}
      onChoose={choose}
    >
      {why && <p className="approval-reason">Asks because {why}.</p>}
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
      <AnswerFailure requestId={approval.requestId} />
    </ApprovalCardFrame>
  );
}
