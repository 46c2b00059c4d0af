import { describe, expect, it } from 'vitest';
import { serializationKeyOf } from './define.js';
import { Dispatcher, type MethodHandlers } from './dispatcher.js';
import { RpcError } from './errors.js';
import { clientMethods, type ClientMethod } from './registry.js';

/** A promise the test settles by hand: handlers block on it, so nothing here waits on time. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Lets every queued promise callback run (a few macrotask turns' worth of microtasks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function dispatcherWith(overrides: Partial<MethodHandlers<null>>): Dispatcher<null> {
  const refuse = () => {
    throw RpcError.invalidRequest('not under test');
  };
  const all = Object.fromEntries(Object.keys(clientMethods).map((method) => [method, refuse]));
  return new Dispatcher<null>({ ...all, ...overrides } as MethodHandlers<null>);
}

/** `thread/name/set` handlers that log when they start and end, and end when their gate opens. */
function loggedRenames() {
  const log: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  const dispatcher = dispatcherWith({
    'thread/name/set': async (params) => {
      log.push(`start ${params.name}`);
      const g = gate();
      gates.set(params.name, g);
      await g.opened;
      log.push(`end ${params.name}`);
      return {};
    },
  });
  return { log, gates, dispatcher };
}

describe('serialization scopes (declared beside each method, enforced by the dispatcher)', () => {
  it('runs two requests on one thread one after the other, in the order they came', async () => {
    const { log, gates, dispatcher } = loggedRenames();
    const first = dispatcher.call('thread/name/set', { threadId: 't1', name: 'a' }, null);
    const second = dispatcher.call('thread/name/set', { threadId: 't1', name: 'b' }, null);
    await settle();
    expect(log).toEqual(['start a']);
    gates.get('a')!.open();
    await first;
    await settle();
    expect(log).toEqual(['start a', 'end a', 'start b']);
    gates.get('b')!.open();
    await second;
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('lets requests on different threads overlap', async () => {
    const { log, gates, dispatcher } = loggedRenames();
    const first = dispatcher.call('thread/name/set', { threadId: 't1', name: 'a' }, null);
    const second = dispatcher.call('thread/name/set', { threadId: 't2', name: 'b' }, null);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    gates.get('b')!.open();
    await second;
    gates.get('a')!.open();
    await first;
    expect(log).toEqual(['start a', 'start b', 'end b', 'end a']);
  });

  it('goes on with the next request on the thread after one fails', async () => {
    const started: string[] = [];
    const dispatcher = dispatcherWith({
      'thread/name/set': async (params) => {
        started.push(params.name);
        await settle();
        if (params.name === 'bad') throw RpcError.invalidRequest('refused');
        return {};
      },
    });
    const failing = dispatcher.call('thread/name/set', { threadId: 't1', name: 'bad' }, null);
    const next = dispatcher.call('thread/name/set', { threadId: 't1', name: 'good' }, null);
    await expect(failing).rejects.toThrow('refused');
    await expect(next).resolves.toEqual({});
    expect(started).toEqual(['bad', 'good']);
  });

  it('runs config writes one at a time, whatever they touch', async () => {
    const log: string[] = [];
    const gates: Array<ReturnType<typeof gate>> = [];
    const write = async (label: string) => {
      log.push(`start ${label}`);
      const g = gate();
      gates.push(g);
      await g.opened;
      log.push(`end ${label}`);
      return { status: 'ok' as const, version: 'v', filePath: '/config.toml', overriddenMetadata: null };
    };
    const dispatcher = dispatcherWith({
      'config/value/write': () => write('value'),
      'config/batchWrite': () => write('batch'),
    });
    const one = dispatcher.call('config/value/write', { keyPath: 'model', value: 'a', mergeStrategy: 'replace' }, null);
    const two = dispatcher.call('config/batchWrite', { edits: [{ keyPath: 'model', value: 'b', mergeStrategy: 'replace' }] }, null);
    await settle();
    expect(log).toEqual(['start value']);
    gates[0]!.open();
    await one;
    await settle();
    gates[1]!.open();
    await two;
    expect(log).toEqual(['start value', 'end value', 'start batch', 'end batch']);
  });

  it('declares a thread scope only on methods whose params name the thread', () => {
    for (const [method, spec] of Object.entries(clientMethods) as [ClientMethod, (typeof clientMethods)[ClientMethod]][]) {
      if (!('serialization' in spec) || spec.serialization?.kind !== 'thread') continue;
      const shape = (spec.params as unknown as { shape?: Record<string, unknown> }).shape;
      expect(shape && 'threadId' in shape, `${method} is serialized per thread but has no threadId param`).toBe(true);
    }
    expect(serializationKeyOf(clientMethods['turn/start'], { threadId: 'x' })).toBe('thread:x');
    expect(serializationKeyOf(clientMethods['thread/list'], {})).toBeNull();
    expect(serializationKeyOf(clientMethods['config/value/write'], {})).toBe('global:config');
  });
});
