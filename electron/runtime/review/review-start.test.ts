import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpcError, type ParamsOf, type ThreadItem, type Turn } from '../../../shared/protocol/index.js';
import { textReply } from '../../../test-support/agent-commands.js';
import { useMockAgentKit } from '../../../test-support/mock-agent-kit.js';

/** Codex's review/start through a real runtime: real git repositories, the mock model's scripted review. */
const GIT_ID = ['-c', 'user.name=P', '-c', 'user.email=p@p'];

const kit = useMockAgentKit();

const git = (cwd: string, ...args: string[]) => execFileSync('git', [...GIT_ID, ...args], { cwd, encoding: 'utf8' }).trim();

/** main: greeting.txt; branch `feature` (checked out) adds a commit changing it; the working tree adds an untracked file. */
function repository(): string {
  const project = kit.tempDir('wh-review-');
  git(project, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\ntwo\nthree\n');
  git(project, 'add', '.');
  git(project, 'commit', '-q', '-m', 'first');
  git(project, 'checkout', '-q', '-b', 'feature');
  fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\nTWO\nthree\n');
  git(project, 'commit', '-q', '-am', 'Shout two');
  fs.writeFileSync(path.join(project, 'untracked.txt'), 'brand new\n');
  return project;
}

const agent = () => kit.agent();

/** The last request the mock model received: its system instructions and the user message. */
function lastModelRequest(): { system: string; user: string; tools: unknown } {
  const body = kit.mock.requests.at(-1)!.body as { messages: { role: string; content: string }[]; tools?: unknown };
  return { system: body.messages.find((m) => m.role === 'system')!.content, user: body.messages.filter((m) => m.role === 'user').at(-1)!.content, tools: body.tools };
}

const exited = (turn: Turn) => turn.items.find((i): i is Extract<ThreadItem, { type: 'exitedReviewMode' }> => i.type === 'exitedReviewMode')!;

describe('review/start', () => {
  it('reviews the uncommitted changes: the diff goes to the model, its findings come back parsed, with their lines and priority', async () => {
    const a = agent();
    const project = repository();
    fs.writeFileSync(path.join(project, 'greeting.txt'), 'one\nTWO\nthree\nfour\n');
    const { thread } = await a.call('thread/start', { cwd: project });
    const answer = {
      findings: [
        {
          title: '[P1] Four is never read',
          body: 'The new line `four` is written but nothing reads it.',
          confidence_score: 0.8,
          priority: 1,
          code_location: { absolute_file_path: path.join(project, 'greeting.txt'), line_range: { start: 4, end: 4 } },
        },
      ],
      overall_correctness: 'patch is incorrect',
      overall_explanation: 'One line is dead.',
      overall_confidence_score: 0.7,
    };
    kit.mock.enqueue(textReply(JSON.stringify(answer)));
    const started = await a.call('review/start', { threadId: thread.id, target: { type: 'uncommittedChanges' } });
    expect(started.reviewThreadId).toBe(thread.id);
    expect(started.turn.items.map((i) => [i.type, 'review' in i ? i.review : null])).toEqual([['enteredReviewMode', 'current changes']]);
    const turn = await a.completed(started.turn.id);

    const request = lastModelRequest();
    expect(request.system).toContain('"code_location"');
    expect(request.tools ?? []).toEqual([]);
    expect(request.user).toContain('+four');
    expect(request.user).toContain('+++ b/untracked.txt');
    // Only what is not committed: the feature commit's change is HEAD's already.
    expect(request.user).not.toContain('-two');

    expect(turn.status).toBe('completed');
    expect(turn.items.map((i) => i.type)).toEqual(['enteredReviewMode', 'exitedReviewMode']);
    const item = exited(turn);
    expect(item.output).toEqual({
      findings: [
        {
          title: '[P1] Four is never read',
          body: 'The new line `four` is written but nothing reads it.',
          confidenceScore: 0.8,
          priority: 1,
          codeLocation: { absoluteFilePath: path.join(project, 'greeting.txt'), lineRange: { start: 4, end: 4 } },
          path: 'greeting.txt',
        },
      ],
      overallCorrectness: 'patch is incorrect',
      overallExplanation: 'One line is dead.',
      overallConfidenceScore: 0.7,
    });
    expect(item.review).toContain('One line is dead.');
    expect(item.review).toContain(`[P1] Four is never read — ${path.join(project, 'greeting.txt')}:4-4`);
    // The model's JSON is not shown as a reply, and the next turn's model sees the findings.
    expect(turn.items.some((i) => i.type === 'agentMessage')).toBe(false);
    kit.mock.enqueue(textReply('Fixing.'));
    const next = await a.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'fix it', text_elements: [] }] });
    await a.completed(next.turn.id);
    const body = kit.mock.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.some((m) => m.role === 'user' && m.content.includes('[P1] Four is never read'))).toBe(true);
  });

  it('reviews a branch against its base and one commit, naming each in the enteredReviewMode item', async () => {
    const a = agent();
    const project = repository();
    const { thread } = await a.call('thread/start', { cwd: project });

    kit.mock.enqueue(textReply('{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Fine.","overall_confidence_score":0.9}'));
    const branch = await a.call('review/start', { threadId: thread.id, target: { type: 'baseBranch', branch: 'main' } });
    expect(branch.turn.items[0]).toMatchObject({ type: 'enteredReviewMode', review: "changes against 'main'" });
    const branchTurn = await a.completed(branch.turn.id);
    const base = git(project, 'rev-parse', 'main');
    expect(lastModelRequest().user).toContain(`merge base ${base}`);
    expect(lastModelRequest().user).toContain('-two\n+TWO');
    expect(lastModelRequest().user).toContain('+++ b/untracked.txt');
    expect(exited(branchTurn).output).toMatchObject({ findings: [], overallCorrectness: 'patch is correct' });
    expect(exited(branchTurn).review).toBe('Fine.');

    const sha = git(project, 'rev-parse', 'HEAD');
    kit.mock.enqueue(textReply('Looks fine to me, nothing to flag.'));
    const commit = await a.call('review/start', { threadId: thread.id, target: { type: 'commit', sha: sha.slice(0, 10) } });
    expect(commit.turn.items[0]).toMatchObject({ type: 'enteredReviewMode', review: `commit ${sha.slice(0, 7)}: Shout two` });
    const commitTurn = await a.completed(commit.turn.id);
    expect(lastModelRequest().user).toContain(`commit ${sha}`);
    expect(lastModelRequest().user).toContain('-two\n+TWO');
    expect(lastModelRequest().user).not.toContain('untracked.txt');
    // An answer that is not the JSON asked for: Codex keeps the text as the explanation, no findings.
    expect(exited(commitTurn).output).toEqual({ findings: [], overallCorrectness: '', overallExplanation: 'Looks fine to me, nothing to flag.', overallConfidenceScore: null });

    kit.mock.enqueue(textReply('Here it is: {"findings":[{"title":"[P2] Check","body":"b","confidence_score":2,"priority":7,"code_location":{"absolute_file_path":"greeting.txt","line_range":{"start":2,"end":1}}}],"overall_correctness":"patch is incorrect","overall_explanation":"x"}'));
    const custom = await a.call('review/start', { threadId: thread.id, target: { type: 'custom', instructions: 'Look at the greeting only' } });
    expect(custom.turn.items[0]).toMatchObject({ type: 'enteredReviewMode', review: 'Look at the greeting only' });
    const customTurn = await a.completed(custom.turn.id);
    expect(lastModelRequest().user).toContain('Look at the greeting only');
    // JSON inside prose is found; out-of-range numbers are brought into range; a relative path is the repository's.
    expect(exited(customTurn).output!.findings).toEqual([
      { title: '[P2] Check', body: 'b', confidenceScore: 1, priority: null, codeLocation: { absoluteFilePath: 'greeting.txt', lineRange: { start: 2, end: 2 } }, path: 'greeting.txt' },
    ]);
  });

  it('refuses, changing nothing, a plain folder, an unknown commit and an unknown branch', async () => {
    const a = agent();
    const plain = kit.tempDir('wh-plain-');
    const project = repository();
    const inPlain = (await a.call('thread/start', { cwd: plain })).thread;
    const inRepo = (await a.call('thread/start', { cwd: project })).thread;
    const requestsBefore = kit.mock.requests.length;
    const refusal = async (p: ParamsOf<'review/start'>) => {
      const error = await a.call('review/start', p).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RpcError);
      return error as RpcError;
    };
    expect((await refusal({ threadId: inPlain.id, target: { type: 'uncommittedChanges' } })).data).toMatchObject({ reason: 'git.notARepository', path: plain });
    expect((await refusal({ threadId: inRepo.id, target: { type: 'commit', sha: 'deadbeef' } })).data).toMatchObject({ reason: 'review.unknownCommit', sha: 'deadbeef' });
    expect((await refusal({ threadId: inRepo.id, target: { type: 'commit', sha: '--output=/tmp/x' } })).data).toMatchObject({ reason: 'review.unknownCommit' });
    expect((await refusal({ threadId: inRepo.id, target: { type: 'baseBranch', branch: 'nope' } })).data).toMatchObject({ reason: 'review.unknownBranch', branch: 'nope' });
    expect((await refusal({ threadId: inRepo.id, target: { type: 'detached' } as never })).code).toBe(-32602);
    expect(kit.mock.requests.length).toBe(requestsBefore);
    const read = await a.call('thread/read', { threadId: inRepo.id, includeTurns: true });
    expect(read.thread.turns).toEqual([]);
  });
});
