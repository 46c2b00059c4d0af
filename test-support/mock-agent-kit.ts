import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AnyNotification, ClientMethod, ParamsOf, ResultOf, ServerRequestMethod, Thread, Turn } from '../shared/protocol/index.js';
import { createModelClient } from '../electron/model/create-model-client.js';
import type { ResolvedProvider, WireApi } from '../electron/model/types.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { Runtime } from '../electron/host/runtime.js';
import type { OutgoingRequest } from '../electron/runtime/outgoing/outgoing-sender.js';
import { RpcHost } from '../electron/server/rpc-host.js';
import { mockModelConfig } from './agent-commands.js';
import { killAllChildren } from './child-process.js';
import { startMockModelServer, type MockModelServer } from './mock-model/index.js';
import { mockProvider } from './mock-model/model-test-kit.js';
import { createTestRuntime, settledCaller, type TestRuntimeOptions } from './test-runtime.js';
import { waitUntil } from './waiting.js';

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/** A person's message as turn/start takes it. */
export const textInput = (text: string) => [{ type: 'text' as const, text }];

export interface MockAgentOptions {
  /** An existing home (a restart), left in place; default: a fresh temp home, removed after the test. */
  readonly home?: string;
  /** Written to the fresh home's config.toml before the runtime starts. */
  readonly configToml?: string;
  /** The fresh home's folder-name prefix. */
  readonly homePrefix?: string;
  /** The wire the mock model speaks (default chat) and provider settings (retries, timeouts). */
  readonly wire?: WireApi;
  readonly provider?: Partial<ResolvedProvider>;
  /** Calls settle once the notifications they published have reached `seen` (as a carrier's client reads them after the response). */
  readonly settledCalls?: boolean;
  /** More of the runtime's parts (a login environment, say). */
  readonly runtime?: Partial<TestRuntimeOptions>;
}

/** A real runtime on a real home whose agent is the mock model, driven in-process. */
export interface MockAgent {
  readonly runtime: Runtime;
  readonly home: string;
  /** Every notification the runtime sent, in order. */
  readonly seen: AnyNotification[];
  /** The model of each thread the runtime bound to the mock model (null: the default). */
  readonly boundModels: Array<string | null>;
  call<M extends ClientMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Resolves when `check` holds, checked again after each notification. */
  until<T>(what: string, check: () => T | undefined | null | false): Promise<T>;
  /** The first notification from `seen[after]` on (already seen or still to come) that matches. */
  waitFor(match: (n: AnyNotification) => boolean, after?: number, what?: string): Promise<AnyNotification>;
  /** The `which`-th turn of the runtime to complete (default the first), or the turn of that id once completed. */
  completed(which?: number | string): Promise<Turn>;
  /** The first turn to complete from `seen[after]` on. */
  turnDone(after: number): Promise<Turn>;
  /** A new thread (thread/start). */
  startThread(params?: ParamsOf<'thread/start'>): Promise<Thread>;
  /** Sends `text` as a turn of the thread and resolves with the completed turn and the notifications sent meanwhile. */
  runTurn(threadId: string, text: string): Promise<{ turn: Turn; notifications: AnyNotification[] }>;
  /**
   * Connects a client as a carrier registers one, asked the server requests `canAnswer` allows:
   * `onRequest` gets each with the way to answer it. It stays connected until the test ends.
   */
  answerRequests(connectionId: string, canAnswer: (method: ServerRequestMethod) => boolean, onRequest: (request: OutgoingRequest, answer: (result: unknown) => void) => void): void;
}

/** What a test file's tests share: the mock model, temp folders and runtimes, all ended after each test. */
export interface MockAgentKit {
  /** The mock model server of the file (started before its tests). */
  readonly mock: MockModelServer;
  /** Runs `cleanup` after the test, before the cleanups registered earlier. */
  onCleanup(cleanup: () => Promise<void> | void): void;
  /** A fresh temp folder (its real path), removed after the test. */
  tempDir(prefix?: string): string;
  /** A runtime with the mock model as its agent, shut down after the test. */
  agent(options?: MockAgentOptions): MockAgent;
}

/**
 * Registers the hooks of a test file that drives the agent against the mock
 * model: the server starts before its tests and closes after them; after each
 * test every runtime is shut down and every temp folder removed, newest first
 * (then, with `killChildren`, every process the test spawned is killed).
 */
export function useMockAgentKit(options: { readonly killChildren?: boolean } = {}): MockAgentKit {
  let server: MockModelServer | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeAll(async () => {
    server = await startMockModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    if (options.killChildren) await killAllChildren();
  });
  const kit: MockAgentKit = {
    get mock() {
      if (!server) throw new Error('The mock model starts before the tests: use kit.mock inside a test.');
      return server;
    },
    onCleanup: (cleanup) => void cleanups.push(cleanup),
    tempDir(prefix = 'wh-test-') {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
      cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
    agent: (agentOptions = {}) => mockAgent(kit, agentOptions),
  };
  return kit;
}

function mockAgent(kit: MockAgentKit, options: MockAgentOptions): MockAgent {
  const home = options.home ?? kit.tempDir(options.homePrefix ?? 'wh-home-');
  if (!options.home && options.configToml !== undefined) fs.writeFileSync(path.join(home, 'config.toml'), options.configToml);
  const provider = mockProvider(kit.mock, options.wire ?? 'chat', options.provider);
  const boundModels: Array<string | null> = [];
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    bindModel: async ({ model }) => {
      boundModels.push(model);
      return { client: createModelClient(provider), model: model ?? 'deepseek-chat', contextWindow: 128_000 };
    },
    ...options.runtime,
  });
  kit.onCleanup(() => runtime.shutdown());
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  const settled = settledCaller(runtime, ctx);
  const call = <M extends ClientMethod>(method: M, params: ParamsOf<M>) => (options.settledCalls ? settled(method, params) : runtime.dispatcher.call(method, params, ctx));
  const until = <T>(what: string, check: () => T | undefined | null | false) => waitUntil(check, { what, wakeOn: (wake) => runtime.events.subscribe(wake) });
  const waitFor = (match: (n: AnyNotification) => boolean, after = 0, what = 'a matching notification') => until(what, () => seen.slice(after).find(match));
  const completedTurns = () => seen.flatMap((n) => (n.method === 'turn/completed' ? [n.params.turn] : []));
  const completed = (which: number | string = 1) =>
    until(typeof which === 'number' ? `completed turn number ${which}` : `turn ${which} to complete`, () => {
      const turns = completedTurns();
      return typeof which === 'number' ? turns[which - 1] : turns.find((turn) => turn.id === which);
    });
  const turnDone = (after: number) => waitFor((n) => n.method === 'turn/completed', after, 'a turn to complete').then((n) => (n.params as { turn: Turn }).turn);
  const startThread = async (params: ParamsOf<'thread/start'> = {}) => (await call('thread/start', params)).thread;
  const runTurn = async (threadId: string, text: string) => {
    const mark = seen.length;
    const { turn } = await call('turn/start', { threadId, input: textInput(text) });
    const done = await completed(turn.id);
    return { turn: done, notifications: seen.slice(mark) };
  };
  const answerRequests: MockAgent['answerRequests'] = (connectionId, canAnswer, onRequest) =>
    kit.onCleanup(
      runtime.outgoing.attach({
        connectionId,
        isOpen: true,
        canAnswer,
        sendRequest: (request) => onRequest(request, (result) => void runtime.outgoing.answer(connectionId, { id: request.id, result })),
        sendNotification: () => undefined,
        unsentBytes: 0,
        onceDrained: (callback) => callback(),
      }),
    );
  return { runtime, home, seen, boundModels, call, until, waitFor, completed, turnDone, startThread, runTurn, answerRequests };
}

/**
 * A runtime whose config.toml names the kit's mock model, behind an RpcHost for carriers to serve,
 * with an empty project folder; the host closes and the runtime shuts down after the test.
 */
export function hostedRuntime(kit: MockAgentKit, prefix: string): { runtime: Runtime; host: RpcHost<Runtime>; project: string } {
  const home = kit.tempDir(`${prefix}-`);
  const project = kit.tempDir(`${prefix}-project-`);
  fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(kit.mock));
  const runtime = createTestRuntime({ home });
  const host = new RpcHost(runtime);
  kit.onCleanup(async () => {
    host.close();
    await runtime.shutdown();
  });
  return { runtime, host, project };
}
