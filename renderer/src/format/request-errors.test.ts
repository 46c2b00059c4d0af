import { describe, expect, it } from 'vitest';
import { ErrorCode, RpcError } from '../../../shared/protocol/errors.js';
import { asSentence, describeRequestError, NOT_CONNECTED_MESSAGE } from './request-errors.js';

describe('describing a failed request', () => {
  it('turns the spent goal budget into a sentence with the Raise budget action', () => {
    const error = RpcError.because(
      'goal.budgetSpent',
      'the thread goal has used its token budget (45 of 40 tokens); raise the budget or clear the goal to continue',
      { threadId: 't1', goal: { status: 'budgetLimited', tokensUsed: 45, tokenBudget: 40 } },
    );
    expect(describeRequestError(error)).toEqual({
      message: 'This thread’s goal has used its token budget (45 of 40 tokens). Raise the budget or clear the goal to continue.',
      action: 'raiseBudget',
    });
  });

  it('says a request made while disconnected sent nothing and kept the message', () => {
    const described = describeRequestError(new RpcError(ErrorCode.Internal, NOT_CONNECTED_MESSAGE));
    expect(described.action).toBe('reconnect');
    expect(described.message).toMatch(/^Not connected.*kept\.$/);
  });

  it('names a working folder that is gone and offers Settings', () => {
    const error = RpcError.because('cwd.notFound', 'invalid params for thread/start: cwd: folder does not exist: /tmp/gone', {
      field: 'cwd',
      path: '/tmp/gone',
      problem: 'missing',
    });
    expect(describeRequestError(error)).toEqual({
      message: 'The folder /tmp/gone does not exist any more. Choose another project folder in Settings.',
      action: 'openSettings',
    });
  });

  it('capitalises and ends any other server message like a sentence', () => {
    expect(describeRequestError(RpcError.invalidParams('invalid params for thread/start: cwd: not a folder'))).toEqual({
      message: 'Invalid params for thread/start: cwd: not a folder.',
      action: null,
    });
    expect(asSentence('done already!')).toBe('Done already!');
    expect(asSentence('  ')).toBe('Something went wrong.');
  });
});
