import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test-support/paths.js';
import { ERROR_REASON_CODES, ERROR_REASONS, ErrorCode, isErrorReason, RpcError } from './errors.js';

/** The rows of docs/errors.md's reason table: reason, code, when, what to do. */
function documentedReasons(): Map<string, { code: number; when: string; todo: string }> {
  const text = fs.readFileSync(path.join(repoRoot, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, { code: number; when: string; todo: string }>();
  for (const line of text.split('\n')) {
    const cells = /^\| `([^`]+)` \| (-\d+) \| (.+) \| (.+) \|$/.exec(line);
    if (cells) rows.set(cells[1]!, { code: Number(cells[2]), when: cells[3]!.trim(), todo: cells[4]!.trim() });
  }
  return rows;
}

describe('the closed set of error reasons', () => {
  it('documents every reason the runtime can send, with its code, when it happens and what helps', () => {
    const documented = documentedReasons();
    expect([...documented.keys()].sort()).toEqual([...ERROR_REASONS].sort());
    for (const reason of ERROR_REASONS) {
      const row = documented.get(reason)!;
      expect(row.code, reason).toBe(ERROR_REASON_CODES[reason]);
      expect(row.when.length, reason).toBeGreaterThan(10);
      expect(row.todo.length, reason).toBeGreaterThan(5);
    }
  });

  it('uses one style: area.camelCase', () => {
    for (const reason of ERROR_REASONS) expect(reason).toMatch(/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/);
  });

  it('sends the reason in data.reason with the code the reason fixes', () => {
    const error = RpcError.because('thread.archived', 'thread t1 is archived', { threadId: 't1' });
    expect(error.toJSON()).toEqual({ code: ErrorCode.InvalidRequest, message: 'thread t1 is archived', data: { threadId: 't1', reason: 'thread.archived' } });
    expect(RpcError.because('cwd.notFound', 'gone').code).toBe(ErrorCode.InvalidParams);
    expect(RpcError.because('secretStorage.failed', 'broken').code).toBe(ErrorCode.Internal);
  });

  it('reads a reason back from what arrived, and ignores one outside the set', () => {
    expect(RpcError.fromShape({ code: -32600, message: 'x', data: { reason: 'job.notFound' } }).reason).toBe('job.notFound');
    expect(RpcError.fromShape({ code: -32600, message: 'x', data: { reason: 'forbidden' } }).reason).toBeNull();
    expect(RpcError.fromShape({ code: -32600, message: 'x', data: 'text' }).reason).toBeNull();
    expect(isErrorReason('toString')).toBe(false);
  });

  it('refuses a reason outside the set at compile time', () => {
    // @ts-expect-error 'forbidden' is not in the closed set
    RpcError.because('forbidden', 'no');
    // @ts-expect-error data thrown by the runtime must carry a reason
    new RpcError(ErrorCode.InvalidRequest, 'no', { jobId: 'j1' });
  });
});
