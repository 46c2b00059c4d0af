import { RpcError, type HandlerParamsOf, type ResultOf } from '../../../shared/protocol/index.js';
import type { Checkpoints } from '../../git/checkpoints.js';
import { GitError, type GitRunner } from '../../git/git-runner.js';
import { reviewDiff, ReviewTargetError, type ReviewDiff } from '../../git/review-diff.js';
import type { ThreadManager } from '../thread-manager.js';
import type { TurnEngine } from '../turns/turn-engine.js';
import { reviewHint, reviewRequest } from './review-prompt.js';

export interface ReviewServiceDeps {
  readonly git: GitRunner;
  readonly checkpoints: Checkpoints;
  readonly threads: ThreadManager;
  readonly turns: TurnEngine;
}

const REASONS = { notARepository: 'git.notARepository', unknownBranch: 'review.unknownBranch', unknownCommit: 'review.unknownCommit' } as const;

/**
 * Codex's `review/start`: the target's diff from git (uncommitted changes, against a base
 * branch, one commit), then a review turn on the thread. Nothing starts when the target
 * has no diff to take: a plain folder, an unknown branch or commit is a typed refusal.
 */
export class ReviewService {
  constructor(private readonly deps: ReviewServiceDeps) {}

  async start(params: HandlerParamsOf<'review/start'>): Promise<ResultOf<'review/start'>> {
    const { record } = this.deps.threads.requireUnarchived(params.threadId, 'review/start');
    const { target } = params;
    let diff: ReviewDiff | null = null;
    if (target.type !== 'custom') {
      try {
        diff = await reviewDiff(this.deps.git, this.deps.checkpoints, record.cwd, target);
      } catch (error) {
        if (error instanceof ReviewTargetError) {
          const data = target.type === 'commit' ? { sha: target.sha } : target.type === 'baseBranch' ? { branch: target.branch } : { path: record.cwd };
          throw RpcError.because(REASONS[error.kind], error.message, data);
        }
        if (error instanceof GitError) throw RpcError.because('git.failed', `git refused: ${error.stderr || error.message}`);
        throw error;
      }
    }
    const { turn } = this.deps.turns.startReview(record.id, reviewHint(target, diff), {
      prompt: reviewRequest(target, diff, record.cwd),
      root: diff?.root ?? (await this.repositoryRoot(record.cwd)),
    });
    return { turn, reviewThreadId: record.id };
  }

  /** A custom review's findings are placed in the thread's repository, if it is in one. */
  private async repositoryRoot(cwd: string): Promise<string | null> {
    const probe = await this.deps.git.run(['rev-parse', '--show-toplevel'], { cwd, okExitCodes: [128] }).catch(() => null);
    return probe && probe.exitCode === 0 ? probe.stdout.toString('utf8').trim() : cwd;
  }
}
