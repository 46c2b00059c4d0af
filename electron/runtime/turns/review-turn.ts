import type { ThreadItem } from '../../../shared/protocol/index.js';
import { addUsage, type ActiveTurn, type ReviewTurnRequest } from '../active-turn.js';
import type { TurnOutcome, TurnRunnerDeps } from './turn-runner.js';
import { parseReviewOutput, renderReview } from './review-output.js';

/**
 * The system instructions of a review turn: what Codex's review prompt asks for, in our
 * words, and its output schema exactly, so the answer parses as Codex's review output.
 */
export const REVIEW_INSTRUCTIONS = [
  'You are reviewing a code change another engineer made. Flag only problems the author would want to fix:',
  'ones that affect correctness, performance, security or maintainability, that the change introduced, that are',
  'discrete and actionable, and that do not rest on guesses about the rest of the codebase. Ignore style unless it hides meaning.',
  'Report every such problem, one finding each; if there is none, report none.',
  '',
  'Each finding: a title of at most 80 characters starting with its priority tag ([P0] drop everything, [P1] urgent,',
  '[P2] normal, [P3] nice to have), a one-paragraph Markdown body saying why it is a problem and when it happens,',
  'the same priority as a number, your confidence from 0 to 1, and the shortest line range (in the new version of',
  'the file, at most about 10 lines) that overlaps the diff.',
  '',
  'Finish with a verdict: "patch is correct" (nothing breaks, no blocking bug) or "patch is incorrect", a 1-3 sentence',
  'explanation and your confidence in it.',
  '',
  'Answer with this JSON only, no Markdown fences and no other text:',
  '{"findings":[{"title":"...","body":"...","confidence_score":0.0,"priority":0,',
  '"code_location":{"absolute_file_path":"...","line_range":{"start":1,"end":1}}}],',
  '"overall_correctness":"patch is correct","overall_explanation":"...","overall_confidence_score":0.0}',
].join('\n');

type ExitedReviewMode = Extract<ThreadItem, { type: 'exitedReviewMode' }>;

/**
 * A review turn, as Codex's: one model request with the review instructions and the
 * diff, no tools (the diff is in the request, and a review changes nothing). The
 * model's answer is not shown as a reply: it becomes the exitedReviewMode item, its
 * findings parsed as Codex parses them. A stopped review still closes review mode.
 */
export async function runReviewTurn(turn: ActiveTurn, review: ReviewTurnRequest, deps: TurnRunnerDeps): Promise<TurnOutcome> {
  const signal = turn.controller.signal;
  const startedAtMs = deps.now();
  const exit = (item: Omit<ExitedReviewMode, 'type' | 'id' | 'turnId' | 'createdAtMs' | 'startedAtMs' | 'completedAtMs'>) =>
    storeExit(turn, deps, { type: 'exitedReviewMode', id: deps.newId(), turnId: turn.id, createdAtMs: startedAtMs, startedAtMs, completedAtMs: deps.now(), ...item });
  try {
    const { record } = deps.threads.require(turn.threadId);
    const binding = await deps.bindModel({ modelProvider: record.modelProvider, model: turn.model ?? record.model });
    turn.model = binding.model;
    let text = '';
    const stream = binding.client.stream({
      model: binding.model,
      instructions: REVIEW_INSTRUCTIONS,
      messages: [{ role: 'user', content: review.prompt }],
      tools: [],
      signal,
    });
    for await (const event of stream) {
      if (event.type === 'textDelta') text += event.delta;
      else if (event.type === 'usage') turn.usage = addUsage(turn.usage, event.usage);
      else if (event.type === 'retrying') {
        deps.events.publish(
          'turn/retrying',
          { threadId: turn.threadId, turnId: turn.id, attempt: event.attempt, delayMs: event.delayMs, reason: event.reason },
          { threadId: turn.threadId, turnId: turn.id, ephemeral: turn.ephemeral },
        );
      }
    }
    if (signal.aborted) {
      exit({ review: '', output: null });
      return { status: 'interrupted', error: null };
    }
    const output = parseReviewOutput(text, review.root);
    exit({ review: renderReview(output), output });
    return { status: 'completed' };
  } catch (error) {
    exit({ review: '', output: null });
    if (signal.aborted) return { status: 'interrupted', error: null };
    throw error;
  }
}

function storeExit(turn: ActiveTurn, deps: TurnRunnerDeps, item: ExitedReviewMode): void {
  const scope = { threadId: turn.threadId, turnId: turn.id, itemId: item.id, ephemeral: turn.ephemeral };
  deps.events.commit(turn.store, () => {
    turn.store.items.append(turn.threadId, item);
    deps.events.publish('item/started', { threadId: turn.threadId, turnId: turn.id, item: { ...item, completedAtMs: null }, startedAtMs: item.startedAtMs! }, scope);
    deps.events.publish('item/completed', { threadId: turn.threadId, turnId: turn.id, item, completedAtMs: item.completedAtMs!, contentTokenCount: null }, scope);
  });
}
