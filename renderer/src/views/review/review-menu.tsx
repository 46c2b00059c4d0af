import { ChevronDown, FileDiff, GitBranch, GitCommitHorizontal, SearchCheck } from 'lucide-react';
import { useId, useRef, useState, type ReactNode } from 'react';
import type { ReviewTarget } from '../../../../shared/protocol/methods/review.js';
import { useConversationStore, useProjectsStore } from '../../services/services.js';
import { Popover } from '../common/popover.js';
import { PopoverMenu } from '../common/popover-menu.js';
import './review.css';

type TargetForm = 'baseBranch' | 'commit';

/**
 * "Review": what to ask the agent to review — the current (uncommitted) changes, the branch
 * against a base branch, or one commit. The last two ask for the branch or sha in a small form
 * under the button; a name the repository does not know is refused next to its field.
 */
export function ReviewMenu({ threadId, hasChanges }: { readonly threadId: string; readonly hasChanges: boolean }) {
  const review = useProjectsStore((s) => s.review);
  const running = useConversationStore((s) => s.threadId === threadId && s.activeTurnId !== null);
  const trigger = useRef<HTMLButtonElement>(null);
  const [form, setForm] = useState<TargetForm | null>(null);
  const close = (refocus: boolean) => {
    setForm(null);
    if (refocus) trigger.current?.focus();
  };
  return (
    <>
      <PopoverMenu
        label="Review"
        triggerClassName="button button-secondary"
        triggerTestId="changes-review"
        triggerRef={trigger}
        triggerDisabled={running}
        triggerTitle={running ? 'The agent is working; review when it has finished.' : 'Ask the agent to review changes, a branch or a commit'}
        entries={[
          { testId: 'review-current', label: 'Current changes', icon: FileDiff, disabled: !hasChanges, onSelect: () => void review(threadId, { type: 'uncommittedChanges' }) },
          { testId: 'review-branch', label: 'Against a branch…', icon: GitBranch, onSelect: () => setForm('baseBranch') },
          { testId: 'review-commit', label: 'A commit…', icon: GitCommitHorizontal, onSelect: () => setForm('commit') },
        ]}
      >
        <SearchCheck size={14} strokeWidth={1.9} aria-hidden="true" />
        Review
        <ChevronDown size={13} strokeWidth={2} aria-hidden="true" />
      </PopoverMenu>
      <Popover
        open={form !== null}
        anchor={trigger}
        onClose={() => close(false)}
        label={form === 'commit' ? 'Review a commit' : 'Review against a branch'}
        className="review-target-editor"
        testId="review-target-form"
      >
        {form === 'baseBranch' && <BranchForm threadId={threadId} onStarted={() => close(true)} />}
        {form === 'commit' && <CommitForm threadId={threadId} onStarted={() => close(true)} />}
      </Popover>
    </>
  );
}

/** The base branch, prefilled with the branch a separate copy came from, else `main`. */
function BranchForm({ threadId, onStarted }: { readonly threadId: string; readonly onStarted: () => void }) {
  const madeFrom = useProjectsStore((s) => s.worktrees[threadId]?.baseBranch ?? null);
  const [branch, setBranch] = useState(madeFrom ?? 'main');
  const id = useId();
  return (
    <TargetFormFrame
      threadId={threadId}
      title="Review against a branch"
      help="The agent reviews what this branch changed since it left the base branch, uncommitted changes included."
      target={branch.trim() ? { type: 'baseBranch', branch: branch.trim() } : null}
      onStarted={onStarted}
      field={(refusal, describedBy, clear) => (
        <>
          <label className="field-label" htmlFor={id}>
            Base branch
          </label>
          <input
            id={id}
            className="field-input"
            data-testid="review-branch-name"
            data-autofocus
            spellCheck={false}
            autoComplete="off"
            maxLength={1024}
            value={branch}
            aria-invalid={refusal ? true : undefined}
            aria-describedby={refusal ? describedBy : undefined}
            onChange={(e) => {
              setBranch(e.target.value);
              clear();
            }}
          />
        </>
      )}
    />
  );
}

/** A commit's sha and, optionally, the title the thread shows for it (its subject when left empty). */
function CommitForm({ threadId, onStarted }: { readonly threadId: string; readonly onStarted: () => void }) {
  const [sha, setSha] = useState('');
  const [title, setTitle] = useState('');
  const shaId = useId();
  const titleId = useId();
  return (
    <TargetFormFrame
      threadId={threadId}
      title="Review a commit"
      help="The agent reviews the changes that one commit made."
      target={sha.trim() ? { type: 'commit', sha: sha.trim(), title: title.trim() || null } : null}
      onStarted={onStarted}
      field={(refusal, describedBy, clear) => (
        <>
          <label className="field-label" htmlFor={shaId}>
            Commit
          </label>
          <input
            id={shaId}
            className="field-input review-target-sha"
            data-testid="review-commit-sha"
            data-autofocus
            spellCheck={false}
            autoComplete="off"
            maxLength={200}
            placeholder="sha, e.g. 3f2a9c1"
            value={sha}
            aria-invalid={refusal ? true : undefined}
            aria-describedby={refusal ? describedBy : undefined}
            onChange={(e) => {
              setSha(e.target.value);
              clear();
            }}
          />
          <label className="field-label" htmlFor={titleId}>
            Title <span className="field-optional">optional</span>
          </label>
          <input
            id={titleId}
            className="field-input"
            data-testid="review-commit-title"
            maxLength={1024}
            placeholder="The commit’s subject"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
        </>
      )}
    />
  );
}

/** The form both targets share: a title, the fields, the runtime's refusal under them, and Review. */
function TargetFormFrame({
  threadId,
  title,
  help,
  target,
  onStarted,
  field,
}: {
  readonly threadId: string;
  readonly title: string;
  readonly help: string;
  readonly target: ReviewTarget | null;
  readonly onStarted: () => void;
  readonly field: (refusal: string | null, describedBy: string, clearRefusal: () => void) => ReactNode;
}) {
  const review = useProjectsStore((s) => s.review);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refusalId = useId();
  return (
    <form
      className="review-target-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!target || busy) return;
        setBusy(true);
        void review(threadId, target).then((outcome) => {
          setBusy(false);
          if (outcome.started) onStarted();
          else setRefusal(outcome.refusal);
        });
      }}
    >
      <h2 className="review-target-title">{title}</h2>
      <p className="review-target-help">{help}</p>
      {field(refusal, refusalId, () => setRefusal(null))}
      {refusal && (
        <p id={refusalId} className="field-error" role="alert" data-testid="review-target-refusal">
          {refusal}
        </p>
      )}
      <div className="review-target-actions">
        <button type="submit" className="button button-primary button-small" data-testid="review-target-start" disabled={!target || busy}>
          <SearchCheck size={13} strokeWidth={1.9} aria-hidden="true" />
          Review
        </button>
      </div>
    </form>
  );
}
