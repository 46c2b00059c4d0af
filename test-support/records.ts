import { ITEM_CODEX_NULLS, textInput, type ThreadItem } from '../shared/protocol/index.js';
import type { ThreadRecord } from '../electron/store/thread-store.js';

/** A complete thread row for store-level tests; override what the test is about. */
export function threadRecord(id: string, patch: Partial<ThreadRecord> = {}): ThreadRecord {
  const now = patch.createdAtMs ?? Date.now();
  return {
    id,
    rolloutPath: null,
    preview: '',
    ephemeral: false,
    modelProvider: 'test',
    model: null,
    createdAtMs: now,
    updatedAtMs: now,
    status: 'idle',
    path: null,
    cwd: '/',
    cliVersion: 'test',
    source: 'api',
    name: null,
    sandboxPolicy: null,
    approvalMode: null,
    archived: false,
    archivedAtMs: null,
    gitSha: null,
    gitBranch: null,
    gitOriginUrl: null,
    memoryMode: null,
    forkedFromId: null,
    ...patch,
  };
}

/** A user message item with the given text. */
export function userMessage(id: string, text: string, createdAtMs = Date.now()): ThreadItem {
  return { id, turnId: null, createdAtMs, startedAtMs: createdAtMs, completedAtMs: createdAtMs, type: 'userMessage', content: [textInput(text)], ...ITEM_CODEX_NULLS.userMessage };
}
