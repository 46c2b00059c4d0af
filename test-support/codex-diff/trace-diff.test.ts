import { describe, expect, it } from 'vitest';
import type { TraceEntry } from './session-driver.js';
import { diffTraces, type Difference } from './trace-diff.js';
import { TraceNormalizer } from './trace-normalizer.js';

/** A trace of one request and what the server sent, in order. */
function trace(method: string, result: Record<string, unknown>, notifications: Record<string, unknown>[] = []): TraceEntry[] {
  return [
    { from: 'client', message: { id: 1, method, params: {} } },
    ...notifications.map((message) => ({ from: 'server' as const, message })),
    { from: 'server', message: { id: 1, result } },
  ];
}

const turnEvents = (...events: [string, Record<string, unknown>?][]) =>
  events.map(([method, params]) => ({ method, params: { threadId: '<thread:1>', ...params } }));

describe('diffTraces', () => {
  it('names the outermost key path Wheelhouse omits, and allows keys it adds', () => {
    const codex = trace('thread/start', { thread: { id: 't', historyMode: 'paginated', environments: [{ cwd: '/p', roots: ['/p'] }] } });
    const ours = trace('thread/start', { thread: { id: 't', lifecycle: 'idle' } });
    expect(diffTraces(codex, ours)).toEqual<Difference[]>([
      { kind: 'missing', method: 'thread/start', path: 'result.thread.environments', codex: 'array' },
      { kind: 'missing', method: 'thread/start', path: 'result.thread.historyMode', codex: 'string' },
    ]);
  });

  it('tells the variants of a union apart by their type', () => {
    const item = (type: string, extra: Record<string, unknown>) => ({ method: 'item/completed', params: { item: { type, id: 'i', ...extra } } });
    const codex = trace('thread/read', {}, [item('userMessage', { content: [{ type: 'text', text: 'hi', text_elements: [] }] }), item('agentMessage', { text: 'yo' })]);
    const ours = trace('thread/read', {}, [item('userMessage', { content: [{ type: 'text', text: 'hi' }] }), item('agentMessage', { text: 'yo' })]);
    expect(diffTraces(codex, ours)).toEqual([
      { kind: 'missing', method: 'item/completed', path: 'params.item<userMessage>.content[]<text>.text_elements', codex: 'array' },
    ]);
  });

  it('reports a JSON type Codex never sends there, and null where Codex always has a value', () => {
    const usage = (cacheWrite: unknown, window: unknown) => ({ method: 'thread/tokenUsage/updated', params: { cacheWrite, window, gitInfo: null } });
    const codex = trace('x', {}, [usage(0, 1000)]);
    const ours = trace('x', {}, [{ method: 'thread/tokenUsage/updated', params: { cacheWrite: '0', window: null, gitInfo: { sha: 'abc' } } }]);
    expect(diffTraces(codex, ours)).toEqual([
      { kind: 'type', method: 'thread/tokenUsage/updated', path: 'params.cacheWrite', codex: 'number', wheelhouse: 'string' },
      { kind: 'type', method: 'thread/tokenUsage/updated', path: 'params.window', codex: 'number', wheelhouse: 'null' },
    ]);
  });

  it('accepts null where Codex itself sends null sometimes', () => {
    const model = (upgrade: unknown) => ({ id: 'm', upgrade });
    expect(diffTraces(trace('model/list', { data: [model('gpt'), model(null)] }), trace('model/list', { data: [model(null)] }))).toEqual([]);
  });

  it('reports a method never sent, and an answer that is an error where Codex has a result', () => {
    const codex = trace('config/read', { config: {} }, [{ method: 'warning', params: { message: 'm' } }]);
    const ours: TraceEntry[] = [
      { from: 'client', message: { id: 1, method: 'config/read', params: {} } },
      { from: 'server', message: { id: 1, error: { code: -32601, message: 'no' } } },
    ];
    expect(diffTraces(codex, ours)).toEqual([
      { kind: 'missing', method: 'config/read', path: 'result', codex: 'object' },
      { kind: 'notSent', method: 'warning' },
    ]);
  });

  it("compares a turn's notifications in the order both servers send them", () => {
    const completed = ['turn/completed', { turn: { id: 'u' } }] as [string, Record<string, unknown>];
    const codex = trace('turn/start', {}, turnEvents(['turn/started'], ['thread/status/changed', { status: { type: 'idle' } }], ['warning'], completed));
    const sameOrder = trace('turn/start', {}, turnEvents(['turn/started'], ['hook/started'], ['thread/status/changed', { status: { type: 'idle' } }], completed));
    const otherOrder = trace('turn/start', {}, turnEvents(['turn/started'], completed, ['thread/status/changed', { status: { type: 'idle' } }]));
    expect(diffTraces(codex, sameOrder).filter((d) => d.kind === 'order')).toEqual([]);
    expect(diffTraces(codex, otherOrder).filter((d) => d.kind === 'order')).toEqual([
      {
        kind: 'order',
        method: 'turn',
        path: '<thread:1> turn 1',
        codex: 'turn/started > thread/status/changed<idle> > turn/completed',
        wheelhouse: 'turn/started > turn/completed',
      },
    ]);
  });

  it('does not hold Wheelhouse to one side of where Codex varies between its own recordings', () => {
    const codex = trace('x', {}, [{ method: 'item/commandExecution/outputDelta', params: { delta: 'a' } }]);
    const unstable: Difference[] = [{ kind: 'notSent', method: 'item/commandExecution/outputDelta' }];
    expect(diffTraces(codex, trace('x', {}), unstable)).toEqual([]);
    expect(diffTraces(codex, trace('x', {}))).toEqual([{ kind: 'notSent', method: 'item/commandExecution/outputDelta' }]);
  });
});

describe('TraceNormalizer', () => {
  const normalizer = () => new TraceNormalizer([{ label: 'home', path: '/tmp/run/home' }, { label: 'cwd', path: '/tmp/run/work/project' }, { label: 'run', path: '/tmp/run' }], 'box');
  const thread = '01a21aa0-90f6-7dc3-95d0-2d81ad93da74';
  const turn = '01a21aa0-9191-7983-b1c2-3650124a095a';

  it('names ids by what they identify and where they first appear, keeping JSON types', () => {
    const n = normalizer();
    const started = n.normalize({ result: { thread: { id: thread, createdAt: 1795743060, path: `/tmp/run/home/sessions/2026/11/27/rollout-2026-11-27T01-31-00-${thread}.jsonl` } } });
    const turnStarted = n.normalize({ params: { threadId: thread, turn: { id: turn, startedAtMs: 1795743060592 }, readStates: { [thread]: { revision: turn } } } });
    expect(started).toEqual({ result: { thread: { id: '<thread:1>', createdAt: 0, path: '<home>/sessions/<date>/rollout-<datetime>-<thread:1>.jsonl' } } });
    expect(turnStarted).toEqual({ params: { threadId: '<thread:1>', turn: { id: '<turn:1>', startedAtMs: 0 }, readStates: { '<thread:1>': { revision: '<turn:1>' } } } });
  });

  it('blanks what depends on the machine, and names the run folders', () => {
    expect(normalizer().normalize({ userAgent: 'codex/0.169.0 (Debian)', processId: '8311', serverName: 'box', cwd: '/tmp/run/work/project', scratch: '/tmp/run/work' })).toEqual({
      userAgent: '<userAgent>',
      processId: '<pid>',
      serverName: '<hostName>',
      cwd: '<cwd>',
      scratch: '<run>/work',
    });
  });

  it("turns a session's placeholders back into the values the server handed out", () => {
    const n = normalizer();
    n.normalize({ result: { thread: { id: thread } } });
    expect(n.resolve({ threadId: '<thread:1>', cwd: '<cwd>', text: 'keep <this>' })).toEqual({ threadId: thread, cwd: '/tmp/run/work/project', text: 'keep <this>' });
    expect(() => n.resolve({ turnId: '<turn:1>' })).toThrow('the session names <turn:1>, which the server has not handed out yet');
  });
});
