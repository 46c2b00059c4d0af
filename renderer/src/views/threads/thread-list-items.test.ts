import { describe, expect, it } from 'vitest';
import { THREAD_CODEX_NULLS, type Thread } from '../../../../shared/protocol/thread.js';
import { nextThreadIndex, threadListItems } from './thread-list-items.js';

const base: Thread = {
  id: 't1',
  sessionId: 't1',
  ...THREAD_CODEX_NULLS,
  canAcceptDirectInput: true,
  environments: [],
  historyMode: 'legacy',
  recencyAt: 0,
  originator: null,
  forkedFromId: null,
  preview: '',
  ephemeral: false,
  modelProvider: 'deepseek',
  model: null,
  createdAt: 0,
  updatedAt: 0,
  status: { type: 'idle' },
  lifecycle: 'idle',
  path: null,
  cwd: '/home/ada/projects/wheelhouse',
  cliVersion: '0.1.0',
  source: 'appServer',
  origin: 'interactive',
  gitInfo: null,
  name: null,
  approvalPolicy: null,
  sandbox: null,
  memoryMode: null,
  archived: false,
  archivedAt: null,
  turns: [],
};

const thread = (id: string, cwd: string, archived = false): Thread => ({ ...base, id, sessionId: id, cwd, archived });

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
