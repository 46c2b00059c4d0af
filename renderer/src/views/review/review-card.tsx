import { SearchCheck } from 'lucide-react';
import type { ConversationItem } from '../../stores/conversation-model.js';
import { useConversationStore, useProjectsStore } from '../../services/services.js';
import { MarkdownView } from '../conversation/markdown-view.js';
import { FindingNote } from './review-findings.js';
import './review.css';

type Item<T extends ConversationItem['type']> = Extract<ConversationItem, { type: T }>;

/** A review turn began: what it looks at. */
export function ReviewStarted({ item }: { readonly item: Item<'enteredReviewMode'> }) {
  return (
    <div className="review-started" data-testid="review-started">
      <SearchCheck size={14} strokeWidth={1.9} aria-hidden="true" />
      Review of {item.review}
    </div>
  );
}

/** A review's result in the thread: the verdict, then every finding with its place; "Show on the diff" opens Changes. */
export function ReviewResult({ item }: { readonly item: Item<'exitedReviewMode'> }) {
  const toggleChanges = useProjectsStore((s) => s.toggleChanges);
  const threadId = useConversationStore((s) => s.threadId);
  const changesOpen = useProjectsStore((s) => s.changes !== null && s.changes.threadId === threadId);
  const output = item.output;
  if (!output) return <div className="review-result" data-testid="review-result">The review was stopped before it finished.</div>;
  const count = output.findings.length;
  const verdict = output.overallCorrectness === 'patch is correct' ? 'Looks correct' : output.overallCorrectness === 'patch is incorrect' ? 'Needs changes' : null;
  return (
    <section className="review-result" data-testid="review-result" aria-label="Review">
      <header className="review-result-head">
        <SearchCheck size={14} strokeWidth={1.9} aria-hidden="true" />
        <span className="review-result-title">{count === 0 ? 'Review: nothing to fix' : `Review: ${count} ${count === 1 ? 'finding' : 'findings'}`}</span>
        {verdict && (
          <span className="review-result-verdict" data-verdict={output.overallCorrectness === 'patch is correct' ? 'correct' : 'incorrect'}>
            {verdict}
          </span>
        )}
        {count > 0 && threadId && !changesOpen && (
          <button type="button" className="button-link review-result-show" data-testid="review-show-diff" onClick={() => toggleChanges(threadId)}>
            Show on the diff
          </button>
        )}
      </header>
      {output.overallExplanation && (
        <div className="review-result-explanation">
          <MarkdownView text={output.overallExplanation} streaming={false} />
        </div>
      )}
      {count > 0 && (
        <ul className="review-result-findings">
          {output.findings.map((finding, index) => (
            <li key={index}>
              <FindingNote finding={finding} showPlace />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
