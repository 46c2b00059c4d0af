import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type AnyNotification,
  type ParamsOf,
  type ResultOf,
} from '../../shared/protocol/index.js';
import { userMessage } from '../../test-support/records.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import type { RequestContext } from './context.js';
import { homePaths } from './home.js';
import type { Runtime } from '../host/runtime.js';
import { createTestRuntime, settledCaller } from '../../test-support/test-runtime.js';

const temp = new TempDirs();
const running: Runtime[] = [];
afterEach(() => {
  for (const runtime of running.splice(0)) runtime.close();
  temp.cleanup();
});

/** A runtime on a real home folder, its notifications and a typed way to call it like a client. */
function startRuntime(home = temp.make()) {
  let clock = Date.UTC(2025, 0, 1);
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    // Each reading of the clock moves it one second, so every change has its own updatedAt.
    now: () => (clock += 1000),
    defaults: { cwd: home },
  });
  running.push(runtime);
  const notifications: AnyNotification[] = [];
  runtime.events.subscribe((n) => notifications.push(n));
  const ctx: RequestContext = {
    session: { connectionId: 'test', carrier: 'in-process', clientInfo: null, optOut: new Set() },
  };
  const call = settledCaller(runtime, ctx);
  const restart = () => {
    runtime.close();
    running.splice(running.indexOf(runtime), 1);
    return startRuntime(home);
  };
  return { runtime, home, call, notifications, restart };
}

/** Thread ids straight from the SQLite file, as another process would see them. */
function idsInFile(home: string): string[] {
  const db = new Database(homePaths(home).stateDb, { readonly: true });
  try {
    return db.prepare<[], { id: string }>('SELECT id FROM threads').all().map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('thread/start', () => {
  it('creates a durable thread in the SQLite file and announces it', async () => {
    const { call, home, notifications } = startRuntime();
    const started = await call('thread/start', { model: 'deepseek-chat', sandbox: 'read-only' });
    const { thread } = started;
    expect(thread).toMatchObject({
      ephemeral: false,
      archived: false,
      name: null,
      model: 'deepseek-chat',
      modelProvider: 'deepseek',
      cwd: home,
      sandbox: 'read-only',
      status: { type: 'idle' },
      turns: [],
    });
    // Codex's effective settings: a sandbox policy object, and the approval policy commands run under (`untrusted` when none was set).
    expect(started).toMatchObject({
      model: 'deepseek-chat',
      cwd: home,
      sandbox: { type: 'readOnly', networkAccess: false },
      approvalPolicy: 'untrusted',
      approvalsReviewer: 'user',
    });
    expect(idsInFile(home)).toEqual([thread.id]);
    expect(notifications).toEqual([{ method: 'thread/started', params: { thread }, seq: expect.any(Number), emittedAtMs: expect.any(Number) }]);
  });

  it('keeps an ephemeral thread out of the SQLite file; it is gone after a restart', async () => {
    const first = startRuntime();
    const { thread } = await first.call('thread/start', { ephemeral: true });
    expect(thread.ephemeral).toBe(true);
    expect(first.notifications.map((n) => n.method)).toEqual(['thread/started']);
    expect((await first.call('thread/list', {})).data.map((t) => t.id)).toEqual([thread.id]);
    await first.call('thread/name/set', { threadId: thread.id, name: 'scratch' });
    expect((await first.call('thread/read', { threadId: thread.id })).thread.name).toBe('scratch');
    first.runtime.events.flush();
    expect(idsInFile(first.home)).toEqual([]);

    const second = first.restart();
    expect((await second.call('thread/list', { includeArchived: true })).data).toEqual([]);
    await expect(second.call('thread/read', { threadId: thread.id })).rejects.toMatchObject({
      code: ErrorCode.InvalidRequest,
      message: expect.stringContaining(thread.id),
    });
  });

  it('rejects bad params with -32602 naming the field', async () => {
    const { call } = startRuntime();
    await expect(call('thread/start', { sandbox: 'yolo' } as never)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('sandbox'),
    });
  });
});

describe('thread/list', () => {
  async function fiveThreads(call: ReturnType<typeof startRuntime>['call']): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call('thread/start', {})).thread.id);
    return ids;
  }

  it('lists newest first and pages with limit and cursor', async () => {
    const { call } = startRuntime();
    const ids = await fiveThreads(call);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: ResultOf<'thread/list'> = await call('thread/list', { limit: 2, cursor });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((t) => t.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(seen).toEqual([...ids].reverse());
    expect(pages).toBe(3);
    const all = await call('thread/list', {});
    expect(all.nextCursor).toBeNull();
    expect(all.data.map((t) => t.id)).toEqual([...ids].reverse());
  });

  /** Follows cursors from `params` until the listing ends; every page's ids, in order. */
  async function pagesOf(call: ReturnType<typeof startRuntime>['call'], params: ParamsOf<'thread/list'>): Promise<ResultOf<'thread/list'>[]> {
    const pages: ResultOf<'thread/list'>[] = [];
    let cursor = params.cursor ?? null;
    do {
      const page: ResultOf<'thread/list'> = await call('thread/list', { ...params, cursor });
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return pages;
  }

  it('orders by creation or by the last change, either way, and pages back from any page with its backwardsCursor (Codex sortKey, sortDirection)', async () => {
    const { call } = startRuntime();
    const ids = await fiveThreads(call);
    // Renaming the oldest makes it the latest changed: the two sort keys now disagree.
    await call('thread/name/set', { threadId: ids[0]!, name: 'touched' });
    const byCreation = [...ids].reverse();
    const byUpdate = [ids[0]!, ...byCreation.slice(0, 4)];
    const idsOf = (pages: ResultOf<'thread/list'>[]) => pages.flatMap((page) => page.data.map((t) => t.id));
    expect(idsOf(await pagesOf(call, { limit: 2 }))).toEqual(byCreation);
    expect(idsOf(await pagesOf(call, { limit: 2, sortKey: 'created_at', sortDirection: 'asc' }))).toEqual(ids);
    expect(idsOf(await pagesOf(call, { limit: 2, sortKey: 'updated_at' }))).toEqual(byUpdate);
    expect(idsOf(await pagesOf(call, { limit: 2, sortKey: 'updated_at', sortDirection: 'asc' }))).toEqual([...byUpdate].reverse());

    // Forwards newest first, then back from the last page: every thread exactly once, the page's first one shared.
    const forwards = await pagesOf(call, { limit: 2, sortKey: 'updated_at', sortDirection: 'desc' });
    const lastPage = forwards.at(-1)!;
    expect(lastPage.backwardsCursor).toEqual(expect.any(String));
    const backwards = await pagesOf(call, { limit: 2, sortKey: 'updated_at', sortDirection: 'asc', cursor: lastPage.backwardsCursor });
    const back = idsOf(backwards);
    expect(back[0]).toBe(lastPage.data[0]!.id);
    expect(new Set([...lastPage.data.map((t) => t.id), ...back]).size).toBe(5);
    expect([...lastPage.data.slice(1).map((t) => t.id).reverse(), ...back]).toEqual([...byUpdate].reverse());
  });

  it('keeps its place when threads are added between pages, and refuses a cursor sent with another order', async () => {
    const { call } = startRuntime();
    const ids = await fiveThreads(call);
    const first = await call('thread/list', { limit: 2 });
    const added = (await call('thread/start', {})).thread.id;
    const rest = await pagesOf(call, { limit: 2, cursor: first.nextCursor });
    expect([...first.data, ...rest.flatMap((page) => page.data)].map((t) => t.id)).toEqual([...ids].reverse());
    // The new thread is before the first page: a client paging back from there finds it.
    const back = await call('thread/list', { sortDirection: 'asc', cursor: first.backwardsCursor });
    expect(back.data.map((t) => t.id)).toEqual([ids[4], added]);

    await expect(call('thread/list', { cursor: first.backwardsCursor })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('opposite sortDirection'),
    });
    await expect(call('thread/list', { sortKey: 'updated_at', cursor: first.nextCursor })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    const forged = Buffer.from(JSON.stringify({ s: 'threads:created_at/desc', at: 'soon', id: 1, i: false })).toString('base64url');
    await expect(call('thread/list', { cursor: forged })).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('not a cursor') });
    await expect(call('thread/list', { sortKey: 'recency_at' } as never)).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('sortKey') });
    expect((await call('thread/list', { archived: true })).backwardsCursor).toBeNull();
  });

  it('hides archived threads unless asked; archived: true lists only them', async () => {
    const { call } = startRuntime();
    const [a, b, c] = await fiveThreads(call);
    await call('thread/archive', { threadId: b! });
    const ids = async (params: ParamsOf<'thread/list'>) => (await call('thread/list', params)).data.map((t) => t.id);
    expect(await ids({})).not.toContain(b);
    expect(await ids({})).toHaveLength(4);
    expect(await ids({ includeArchived: true })).toHaveLength(5);
    expect(await ids({ archived: true })).toEqual([b]);
    expect(await ids({ archived: false })).toEqual(expect.arrayContaining([a, c]));
    expect((await call('thread/list', { archived: true })).data[0]).toMatchObject({ archived: true, archivedAt: expect.any(Number) });
  });

  it('merges durable and ephemeral threads in one newest-first order', async () => {
    const { call } = startRuntime();
    const d1 = (await call('thread/start', {})).thread.id;
    const e1 = (await call('thread/start', { ephemeral: true })).thread.id;
    const d2 = (await call('thread/start', {})).thread.id;
    const firstPage = await call('thread/list', { limit: 2 });
    expect(firstPage.data.map((t) => t.id)).toEqual([d2, e1]);
    const secondPage = await call('thread/list', { limit: 2, cursor: firstPage.nextCursor });
    expect(secondPage.data.map((t) => t.id)).toEqual([d1]);
    expect(secondPage.nextCursor).toBeNull();
  });

  it('rejects a cursor it did not hand out and negative limits with -32602; serves any Codex limit in pages of at most 500', async () => {
    const { call } = startRuntime();
    await expect(call('thread/list', { cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('cursor'),
    });
    await expect(call('thread/list', { limit: -1 })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    await expect(call('thread/list', { limit: 1.5 })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    // Codex's limit is any uint32: 0 and huge values are served, clamped to 1..500.
    await call('thread/start', {});
    await call('thread/start', {});
    expect((await call('thread/list', { limit: 0 })).data).toHaveLength(1);
    expect((await call('thread/list', { limit: 10_000 })).data).toHaveLength(2);
  });
});

describe('thread/read', () => {
  it('returns the thread, its items in order and its latest checkpoint', async () => {
    const { call, runtime } = startRuntime();
    const { thread } = await call('thread/start', {});
    const empty = await call('thread/read', { threadId: thread.id });
    expect(empty).toEqual({ thread, readState: { firstUnread: null, revision: expect.any(String) }, items: [], checkpoint: null, eventSeq: runtime.events.lastSeq });

    const items = [userMessage('i1', 'hello', 1), userMessage('i2', 'again', 2)];
    for (const item of items) runtime.services.durable.items.append(thread.id, item);
    runtime.services.durable.checkpoints.save({ threadId: thread.id, checkpointId: 'c1', reason: 'turn', state: { step: 1 }, createdAtMs: 5_000 });
    runtime.services.durable.checkpoints.save({ threadId: thread.id, checkpointId: 'latest', reason: 'compact', state: { step: 2 }, createdAtMs: 9_000 });

    const read = await call('thread/read', { threadId: thread.id });
    expect(read.items).toEqual(items);
    expect(read.checkpoint).toEqual({ checkpointId: 'latest', reason: 'compact', state: { step: 2 }, createdAt: 9 });
  });
});

describe('thread/name/set', () => {
  it('renames (trimmed), persists, announces and moves the thread to the top of the recently changed', async () => {
    const { call, notifications } = startRuntime();
    const first = (await call('thread/start', {})).thread;
    const second = (await call('thread/start', {})).thread;
    expect(await call('thread/name/set', { threadId: first.id, name: '  Fix the build  ' })).toEqual({});
    const read = await call('thread/read', { threadId: first.id });
    expect(read.thread.name).toBe('Fix the build');
    expect(read.thread.updatedAt).toBeGreaterThan(first.updatedAt);
    expect(notifications.at(-1)).toMatchObject({
      method: 'thread/name/updated',
      params: { threadId: first.id, threadName: 'Fix the build' },
    });
    expect((await call('thread/list', { sortKey: 'updated_at' })).data.map((t) => t.id)).toEqual([first.id, second.id]);
  });

  it('rejects a blank or overlong name with -32602 and changes nothing', async () => {
    const { call, notifications } = startRuntime();
    const { thread } = await call('thread/start', {});
    const before = notifications.length;
    for (const name of ['', '   ', '\n\t']) {
      await expect(call('thread/name/set', { threadId: thread.id, name })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringContaining('name'),
      });
    }
    await expect(call('thread/name/set', { threadId: thread.id, name: 'x'.repeat(201) })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect((await call('thread/read', { threadId: thread.id })).thread.name).toBeNull();
    expect(notifications).toHaveLength(before);
  });
});

describe('thread/archive and thread/unarchive', () => {
  it('archives and restores, with notifications and loaded state', async () => {
    const { call, notifications } = startRuntime();
    const { thread } = await call('thread/start', {});
    expect((await call('thread/loaded/list', {})).data).toEqual([thread.id]);

    expect(await call('thread/archive', { threadId: thread.id })).toEqual({});
    // As Codex: archiving unloads the thread, and says so.
    expect(notifications.slice(-2)).toMatchObject([
      { method: 'thread/archived', params: { threadId: thread.id } },
      { method: 'thread/status/changed', params: { threadId: thread.id, status: { type: 'notLoaded' } } },
    ]);
    expect((await call('thread/loaded/list', {})).data).toEqual([]);
    const archived = (await call('thread/read', { threadId: thread.id })).thread;
    expect(archived).toMatchObject({ archived: true, status: { type: 'notLoaded' } });

    const { thread: restored } = await call('thread/unarchive', { threadId: thread.id });
    expect(restored).toMatchObject({ id: thread.id, archived: false, archivedAt: null });
    expect(notifications.at(-1)).toMatchObject({ method: 'thread/unarchived', params: { threadId: thread.id } });
    expect((await call('thread/list', {})).data.map((t) => t.id)).toEqual([thread.id]);
  });
});

describe('thread/loaded/list', () => {
  it('lists loaded thread ids with limit and cursor', async () => {
    const { call } = startRuntime();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call('thread/start', {})).thread.id);
    const sorted = [...ids].sort();
    const first = await call('thread/loaded/list', { limit: 2 });
    expect(first.data).toEqual(sorted.slice(0, 2));
    expect(first.nextCursor).not.toBeNull();
    const second = await call('thread/loaded/list', { limit: 2, cursor: first.nextCursor });
    expect(second).toEqual({ data: sorted.slice(2), nextCursor: null });
  });
});

describe('unknown thread ids', () => {
  it('answer -32600 naming the id on every thread method', async () => {
    const { call } = startRuntime();
    const threadId = 'no-such-thread-123';
    const attempts = [
      call('thread/read', { threadId }),
      call('thread/name/set', { threadId, name: 'x' }),
      call('thread/archive', { threadId }),
      call('thread/unarchive', { threadId }),
    ];
    for (const attempt of attempts) {
      await expect(attempt).rejects.toMatchObject({
        code: ErrorCode.InvalidRequest,
        message: expect.stringContaining(threadId),
      });
    }
  });
});

describe('notifications', () => {
  it('carry strictly increasing seq numbers across methods', async () => {
    const { call, notifications } = startRuntime();
    const { thread } = await call('thread/start', {});
    await call('thread/name/set', { threadId: thread.id, name: 'one' });
    await call('thread/archive', { threadId: thread.id });
    await call('thread/unarchive', { threadId: thread.id });
    await call('thread/start', { ephemeral: true });
    expect(notifications.map((n) => n.method)).toEqual([
      'thread/started',
      'thread/name/updated',
      'thread/archived',
      'thread/status/changed',
      'thread/unarchived',
      'thread/started',
    ]);
    const seqs = notifications.map((n) => n.seq!);
    expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
  });
});

describe('restart on the same home', () => {
  it('keeps threads, names and archive state; nothing is loaded; seq keeps growing', async () => {
    const first = startRuntime();
    const a = (await first.call('thread/start', {})).thread;
    const b = (await first.call('thread/start', {})).thread;
    await first.call('thread/name/set', { threadId: a.id, name: 'kept' });
    await first.call('thread/archive', { threadId: b.id });
    const lastSeq = first.notifications.at(-1)!.seq!;

    const second = first.restart();
    const all = await second.call('thread/list', { includeArchived: true });
    expect(all.data.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect((await second.call('thread/read', { threadId: a.id })).thread).toMatchObject({
      name: 'kept',
      archived: false,
      status: { type: 'notLoaded' },
    });
    expect((await second.call('thread/read', { threadId: b.id })).thread.archived).toBe(true);
    expect((await second.call('thread/loaded/list', {})).data).toEqual([]);

    await second.call('thread/start', {});
    expect(second.notifications[0]!.seq).toBeGreaterThan(lastSeq);
  });
});

describe('thread/readState/update', () => {
  it('keeps who made a thread, marks it unread and read, and refuses a mark made from an older view', async () => {
    const { runtime, call, notifications } = startRuntime();
    const vscode = settledCaller(runtime, {
      session: { connectionId: 'vscode', carrier: 'stdio', clientInfo: { name: 'codex_vscode', title: null, version: '0.169.0' }, optOut: new Set() },
    });
    const { thread } = await vscode('thread/start', {});
    expect(thread.originator).toBe('codex_vscode');
    expect((await call('thread/start', {})).thread.originator).toBe('wheelhouse');

    const read = await call('thread/read', { threadId: thread.id });
    expect(read.readState).toEqual({ firstUnread: null, revision: `initial:${thread.id}` });
    const unread = await call('thread/readState/update', { threadId: thread.id, operation: { type: 'unread' }, expectedRevision: read.readState!.revision });
    expect(unread.readState.firstUnread).toEqual({ type: 'threadStart' });
    expect(notifications.at(-1)).toMatchObject({ method: 'thread/readState/changed', params: { threadId: thread.id, readState: unread.readState } });
    expect((await call('thread/list', {})).readStates[thread.id]).toEqual(unread.readState);

    // The first view's revision is stale now: the mark is refused with the state as it is.
    await expect(call('thread/readState/update', { threadId: thread.id, operation: { type: 'read' }, expectedRevision: read.readState!.revision })).rejects.toMatchObject({
      code: ErrorCode.InvalidRequest,
      data: { reason: 'thread.readStateConflict', readState: unread.readState },
    });
    const marked = await call('thread/readState/update', { threadId: thread.id, operation: { type: 'read' }, expectedRevision: unread.readState.revision });
    expect(marked.readState.firstUnread).toBeNull();

    const scratch = (await call('thread/start', { ephemeral: true })).thread;
    expect((await call('thread/read', { threadId: scratch.id })).readState).toBeNull();
    expect((await call('thread/list', {})).readStates[scratch.id]).toBeUndefined();
    await expect(call('thread/readState/update', { threadId: scratch.id, operation: { type: 'read' }, expectedRevision: 'x' })).rejects.toMatchObject({
      data: { reason: 'thread.readStateUnavailable' },
    });
  });
});
