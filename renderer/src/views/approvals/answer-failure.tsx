import { useApprovalsStore } from '../../services/services.js';

/** Why the last answer to a request did not go through; it still waits, so answering again is the one thing to do. */
export function AnswerFailure({ requestId }: { readonly requestId: string }) {
  const failure = useApprovalsStore((s) => s.failures[requestId]);
  if (!failure) return null;
  return (
    <p className="approval-answer-failure" role="alert" data-testid="answer-failure">
      Your answer did not reach the runtime: {failure} It is still waiting; answer again.
    </p>
  );
}
