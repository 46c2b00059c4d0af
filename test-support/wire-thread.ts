import { THREAD_CODEX_NULLS, type Thread } from '../shared/protocol/thread.js';

/** A thread as the wire carries it (thread/list, thread/read), idle and unnamed; `patch` sets the rest. */
export function wireThread(patch: Partial<Thread> = {}): Thread {
  return {
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
    ...patch,
  };
}
