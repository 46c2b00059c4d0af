import { describe, expect, it } from 'vitest';
import { THREAD_CODEX_NULLS, type Thread } from '../../../shared/protocol/thread.js';
import { folderName, isUntitled, threadTitle } from './thread-labels.js';

const base: Thread = {
  id: 't1',
  sessionId: 't1',
  ...THREAD_CODEX_NULLS,
  canAcceptDirectInput: true,
  environments: [],
  historyMode: 'legacy',
  recencyAt: 0,
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

describe('thread labels in the sidebar', () => {
  it('shows the name, else the first words, else "Untitled thread"', () => {
    expect(threadTitle({ ...base, name: 'Release checklist', preview: 'fix the build' })).toBe('Release checklist');
    expect(threadTitle({ ...base, preview: '  fix the build  ' })).toBe('fix the build');
    expect(threadTitle(base)).toBe('Untitled thread');
    expect(isUntitled(base)).toBe(true);
    expect(isUntitled({ ...base, preview: 'fix the build' })).toBe(false);
  });

  it('names the working folder on POSIX and Windows paths', () => {
    expect(folderName('/home/ada/projects/wheelhouse')).toBe('wheelhouse');
    expect(folderName('/home/ada/projects/wheelhouse/')).toBe('wheelhouse');
    expect(folderName('C:\\Users\\ada\\api-server')).toBe('api-server');
    expect(folderName('/')).toBe('/');
  });
});
