import { describe, expect, it } from 'vitest';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { wireThread } from '../../../../test-support/wire-thread.js';
import { nextThreadIndex, threadListItems } from './thread-list-items.js';

const thread = (id: string, cwd: string, archived = false): Thread => wireThread({ id, sessionId: id, cwd, archived });

describe('the sidebar as one flat list', () => {
  const active = [thread('a1', '/p/api'), thread('w1', '/p/web'), thread('a2', '/p/api'), thread('c1', '/p/web-copy')];
  // A separate copy sits under the project it was copied from.
  const projectOfThread = { c1: '/p/web' };

  it('puts each project heading before its threads, projects in the order their newest thread comes', () => {
    const items = threadListItems(active, [], projectOfThread, false);
    expect(items.map((item) => item.key)).toEqual(['project:/p/api', 'a1', 'a2', 'project:/p/web', 'w1', 'c1']);
    expect(items.filter((item) => item.kind === 'project-title').map((item) => item.kind === 'project-title' && item.first)).toEqual([true, false]);
  });

  it('ends with the archived section when shown: its heading and threads, or that nothing is archived', () => {
    expect(threadListItems(active, [thread('x1', '/p/api', true)], {}, true).slice(-2).map((item) => item.kind)).toEqual(['archived-title', 'thread']);
    expect(threadListItems([], [], {}, true).map((item) => item.kind)).toEqual(['archived-title', 'archived-empty']);
    expect(threadListItems(active, [thread('x1', '/p/api', true)], {}, false).some((item) => item.key === 'x1')).toBe(false);
  });

  it('walks from thread to thread over the headings, and stops at either end', () => {
    const items = threadListItems(active, [thread('x1', '/p/api', true)], projectOfThread, true);
    const at = (key: string) => items.findIndex((item) => item.key === key);
    expect(items[nextThreadIndex(items, at('a2'), 1)]!.key).toBe('w1');
    expect(items[nextThreadIndex(items, at('w1'), -1)]!.key).toBe('a2');
    expect(items[nextThreadIndex(items, at('c1'), 1)]!.key).toBe('x1');
    expect(nextThreadIndex(items, at('a1'), -1)).toBe(-1);
    expect(nextThreadIndex(items, at('x1'), 1)).toBe(-1);
  });
});
