import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, RpcError, type AnyNotification, type ClientMethod, type ParamsOf, type ResultOf } from '../../shared/protocol/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import type { RequestContext } from './context.js';
import type { Runtime } from '../host/runtime.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';

/**
 * Rules every thread method applies the same way: providers must exist, a
 * cwd must be absolute, and an archived thread is read-only until unarchived.
 */
const temp = new TempDirs();
const running: Runtime[] = [];
afterEach(async () => {
  for (const runtime of running.splice(0)) await runtime.shutdown();
  temp.cleanup();
});

function startRuntime() {
  const home = temp.make();
  const runtime = createTestRuntime({ home, validateResults: true, defaults: { cwd: home } });
  running.push(runtime);
  const notifications: AnyNotification[] = [];
  runtime.events.subscribe((n) => notifications.push(n));
  const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
  const call = <M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> => runtime.dispatcher.call(method, params, ctx);
  return { runtime, home, call, notifications };
}

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected an RpcError');
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

describe('model providers', () => {
  it('thread/start, thread/resume and thread/fork refuse a provider that does not exist, naming it, and change nothing', async () => {
    const { call, notifications } = startRuntime();
    const start = await failure(call('thread/start', { modelProvider: 'nonesuch' }));
    expect(start.code).toBe(ErrorCode.InvalidParams);
    expect(start.message).toContain('unknown model provider "nonesuch"');
    expect(start.message).toContain('deepseek');
    expect((await call('thread/list', {})).data).toEqual([]);
    expect(notifications).toEqual([]);

    const { thread } = await call('thread/start', { modelProvider: 'ollama' });
    expect(thread.modelProvider).toBe('ollama');
    for (const method of ['thread/resume', 'thread/fork'] as const) {
      const refused = await failure(call(method, { threadId: thread.id, modelProvider: 'nonesuch' }));
      expect({ method, code: refused.code }).toEqual({ method, code: ErrorCode.InvalidParams });
    }
    expect((await call('thread/read', { threadId: thread.id })).thread.modelProvider).toBe('ollama');
    expect((await call('thread/list', {})).data).toHaveLength(1);
  });

  it('accepts a provider added in config.toml', async () => {
    const { call } = startRuntime();
    await call('config/value/write', { keyPath: 'model_providers.mine', value: { base_url: 'http://127.0.0.1:9/v1' } });
    expect((await call('thread/start', { modelProvider: 'mine' })).thread.modelProvider).toBe('mine');
  });
});

describe('working folders', () => {
  it('every method that takes a cwd refuses a relative one with -32602, and changes nothing', async () => {
    const { call, home } = startRuntime();
    const { thread } = await call('thread/start', { cwd: home });
    const attempts: Array<[string, Promise<unknown>]> = [
      ['thread/start', call('thread/start', { cwd: '.' })],
      ['thread/start', call('thread/start', { cwd: 'src/../' })],
      ['thread/resume', call('thread/resume', { threadId: thread.id, cwd: '.' })],
      ['thread/fork', call('thread/fork', { threadId: thread.id, cwd: 'sub' })],
      ['turn/start', call('turn/start', { threadId: thread.id, input: text('hi'), cwd: '.' })],
      [
        'thread/queue/add',
        call('thread/queue/add', { threadId: thread.id, turnStartParams: { threadId: thread.id, input: text('hi'), cwd: '.' } }),
      ],
    ];
    for (const [method, attempt] of attempts) {
      const refused = await failure(attempt);
      expect({ method, code: refused.code }).toEqual({ method, code: ErrorCode.InvalidParams });
      expect(refused.message).toContain('cwd: must be an absolute path');
    }
    expect((await call('thread/list', {})).data.map((t) => [t.id, t.cwd])).toEqual([[thread.id, home]]);
    expect((await call('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns).toEqual([]);
    expect((await call('thread/queue/list', { threadId: thread.id })).data).toEqual([]);
  });
});

describe('archived threads are read-only until unarchived', () => {
  it('can be read, opened, renamed, forked and unarchived', async () => {
    const { call } = startRuntime();
    const { thread } = await call('thread/start', {});
    await call('thread/archive', { threadId: thread.id });
    expect((await call('thread/read', { threadId: thread.id })).thread.archived).toBe(true);
    expect((await call('thread/resume', { threadId: thread.id })).thread.id).toBe(thread.id);
    await call('thread/name/set', { threadId: thread.id, name: 'Old idea' });
    expect((await call('thread/goal/get', { threadId: thread.id })).goal).toBeNull();
    const fork = await call('thread/fork', { threadId: thread.id });
    expect(fork.thread.archived).toBe(false);
    expect((await call('thread/list', { includeArchived: true })).data.map((t) => [t.name, t.archived])).toEqual(
      expect.arrayContaining([['Old idea', true]]),
    );
    await call('thread/unarchive', { threadId: thread.id });
    await call('thread/goal/set', { threadId: thread.id, objective: 'now it can' });
  });

  it('refuses everything that runs the agent or changes its conversation, saying to unarchive, and changes nothing', async () => {
    const { call, home, notifications } = startRuntime();
    const { thread } = await call('thread/start', {});
    await call('thread/goal/set', { threadId: thread.id, objective: 'ship it', tokenBudget: 1000 });
    await call('thread/archive', { threadId: thread.id });
    const before = notifications.length;
    const refusals: Array<[string, Promise<unknown>]> = [
      ['turn/start', call('turn/start', { threadId: thread.id, input: text('hi') })],
      ['turn/steer', call('turn/steer', { threadId: thread.id, expectedTurnId: 'x', input: text('hi') })],
      ['thread/resume', call('thread/resume', { threadId: thread.id, model: 'deepseek-reasoner' })],
      ['thread/resume', call('thread/resume', { threadId: thread.id, cwd: home })],
      ['thread/rollback', call('thread/rollback', { threadId: thread.id, numTurns: 1 })],
      ['thread/goal/set', call('thread/goal/set', { threadId: thread.id, objective: 'another' })],
      ['thread/goal/clear', call('thread/goal/clear', { threadId: thread.id })],
      ['thread/queue/add', call('thread/queue/add', { threadId: thread.id, turnStartParams: { threadId: thread.id, input: text('later') } })],
      ['thread/queue/start', call('thread/queue/start', { threadId: thread.id })],
      ['thread/queue/delete', call('thread/queue/delete', { threadId: thread.id, queuedTurnId: 'q' })],
      ['thread/queue/reorder', call('thread/queue/reorder', { threadId: thread.id, queuedTurnIds: ['q'] })],
      ['thread/queue/update', call('thread/queue/update', { threadId: thread.id, queuedTurnId: 'q', input: text('x') })],
    ];
    for (const [method, attempt] of refusals) {
      const refused = await failure(attempt);
      expect({ method, code: refused.code, data: refused.data }).toEqual({
        method,
        code: ErrorCode.InvalidRequest,
        data: { reason: 'thread.archived', threadId: thread.id },
      });
      expect(refused.message).toContain(`${method}: thread ${thread.id} is archived; unarchive it (thread/unarchive) first`);
    }
    expect(notifications.length).toBe(before);
    const read = await call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(read.thread.model).toBe(thread.model);
    expect(read.thread.turns).toEqual([]);
    expect((await call('thread/goal/get', { threadId: thread.id })).goal?.objective).toBe('ship it');
    expect((await call('thread/queue/list', { threadId: thread.id })).data).toEqual([]);
  });
});
