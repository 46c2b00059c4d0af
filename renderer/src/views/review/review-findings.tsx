import type { ReviewFinding, ReviewOutput } from '../../../../shared/protocol/review.js';
import type { ConversationData } from '../../stores/conversation-model.js';
import { useConversationStore } from '../../services/services.js';
import { MarkdownView } from '../conversation/markdown-view.js';
import './review.css';

const PRIORITY_WORDS = ['Urgent, drop everything', 'Fix soon', 'Fix eventually', 'Nice to have'] as const;

/** The newest finished review of the open thread (its exitedReviewMode item's findings); null when there is none. */
export function useLatestReview(threadId: string): ReviewOutput | null {
  return useConversationStore((s) => (s.threadId === threadId ? latestReview(s.data, s.revision) : null));
}

function latestReview(data: ConversationData, _revision: number): ReviewOutput | null {
  for (let i = data.order.length - 1; i >= 0; i--) {
    const item = data.items.get(data.order[i]!);
    if (item?.type === 'exitedReviewMode' && item.output) return item.output;
  }
  return null;
}

/** A file's findings by the line of the new version they end on (where the note is drawn). */
export function findingsByLine(findings: readonly ReviewFinding[], path: string): Map<number, ReviewFinding[]> {
  const byLine = new Map<number, ReviewFinding[]>();
  for (const finding of findings) {
    if (finding.path !== path) continue;
    const line = finding.codeLocation.lineRange.end;
    byLine.set(line, [...(byLine.get(line) ?? []), finding]);
  }
  return byLine;
}

/** One finding: its priority, title and why; drawn under the line it points at, or in the thread's review card. */
export function FindingNote({ finding, showPlace = false }: { readonly finding: ReviewFinding; readonly showPlace?: boolean }) {
  const { start, end } = finding.codeLocation.lineRange;
  const place = `${finding.path ?? finding.codeLocation.absoluteFilePath}:${start === end ? start : `${start}–${end}`}`;
  return (
    <div className="review-finding" data-testid="review-finding" data-priority={finding.priority ?? undefined}>
      <div className="review-finding-head">
        {finding.priority !== null && (
          <span className="review-finding-priority" title={PRIORITY_WORDS[finding.priority]}>
            P{finding.priority}
          </span>
        )}
        <span className="review-finding-title">{withoutPriorityTag(finding.title)}</span>
        {showPlace ? <code className="review-finding-place">{place}</code> : <span className="review-finding-lines">{start === end ? `line ${start}` : `lines ${start}–${end}`}</span>}
      </div>
      <div className="review-finding-body">
        <MarkdownView text={finding.body} streaming={false} />
      </div>
    </div>
  );
}

/** The model tags titles "[P1] …"; the badge already says it. */
function withoutPriorityTag(title: string): string {
  return title.replace(/^\s*\[P[0-3]\]\s*/, '');
}
