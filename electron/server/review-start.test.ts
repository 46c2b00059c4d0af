import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ThreadItem } from '../../shared/protocol/index.js';
import { textReply, turnEnd } from '../../test-support/agent-commands.js';
import { useServedAgentHomes } from '../../test-support/served-agent-home.js';

/**
 * Codex's `review/start` over a real WebSocket to `wheelhouse serve` (each message checked
 * against Codex's schema by the peer): the review turn's items arrive as Codex's, with the
 * findings Wheelhouse adds.
 */
const served = useServedAgentHomes();

describe('review/start over WebSocket', () => {
  it('runs a review turn of the uncommitted changes: enteredReviewMode, then exitedReviewMode with the findings', async () => {
    const { home, project } = served.makeHome('wheelhouse-review-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
    fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\ntwo\n');
    execFileSync('git', ['add', '.'], { cwd: project });
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@p', 'commit', '-q', '-m', 'first'], { cwd: project });
    fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\nTWO\n');
    const alice = await served.client(await served.serve(home), 'alice');
    const finding = { title: '[P2] Shouting', body: 'Two is upper case.', confidence_score: 0.6, priority: 2, code_location: { absolute_file_path: path.join(project, 'greeting.txt'), line_range: { start: 2, end: 2 } } };
    served.mock.enqueue(textReply(JSON.stringify({ findings: [finding], overall_correctness: 'patch is incorrect', overall_explanation: 'Loud.', overall_confidence_score: 0.5 })));
    const { thread } = await alice.call('thread/start', { cwd: project });
    const started = await alice.call('review/start', { threadId: thread.id, target: { type: 'uncommittedChanges' }, delivery: 'inline' });
    expect(started.reviewThreadId).toBe(thread.id);
    const turn = await turnEnd(alice);
    expect(turn.id).toBe(started.turn.id);
    const exited = turn.items.find((i): i is Extract<ThreadItem, { type: 'exitedReviewMode' }> => i.type === 'exitedReviewMode');
    expect(turn.items[0]).toMatchObject({ type: 'enteredReviewMode', review: 'current changes' });
    expect(exited?.output?.findings.map((f) => [f.path, f.codeLocation.lineRange, f.priority])).toEqual([['greeting.txt', { start: 2, end: 2 }, 2]]);
    expect(exited?.review).toContain('[P2] Shouting');
  });
});
