import { ShieldQuestion } from 'lucide-react';
import type { KeyboardEvent, ReactNode } from 'react';

/**
 * What every approval card shares: a focusable group whose letter keys answer
 * it (A, T, R, D, S as each card maps them), headed by the question.
 */
export function ApprovalCardFrame<Choice extends string>(props: {
  readonly label: string;
  readonly title: string;
  readonly testId: string;
  readonly shortcuts: Readonly<Record<string, Choice>>;
  readonly onChoose: (choice: Choice) => void;
  readonly children: ReactNode;
}) {
  const { label, title, testId, shortcuts, onChoose, children } = props;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const choice = shortcuts[event.key.toLowerCase()];
    if (!choice) return;
    event.preventDefault();
    onChoose(choice);
  };
  return (
    <div className="approval-card" role="group" aria-label={label} data-testid={testId} tabIndex={0} onKeyDown={onKeyDown}>
      <div className="approval-head">
        <ShieldQuestion size={15} strokeWidth={2} aria-hidden="true" />
        <span className="approval-title">{title}</span>
      </div>
      {children}
    </div>
  );
}
