import { describe, expect, it } from 'vitest';
import type { Thread } from '../../../shared/protocol/thread.js';
import { wireThread } from '../../../test-support/wire-thread.js';
import { folderName, isUntitled, threadTitle } from './thread-labels.js';

const base: Thread = wireThread();

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
