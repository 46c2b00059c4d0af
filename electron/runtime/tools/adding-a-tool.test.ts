import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createModelClient } from '../../model/create-model-client.js';
import { startMockModelServer, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { mockProvider } from '../../../test-support/mock-model/model-test-kit.js';
import { createTestRuntime, settledCaller } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import type { RequestContext } from '../context.js';
import { ZERO_USAGE, type ActiveTurn } from '../active-turn.js';
import { dispatchToolCall } from '../turns/tool-dispatch.js';
import { LocalFiles } from '../../files/local-files.js';
import { resolveInside } from './workspace-path.js';
import { defineTool, ToolTable, type ToolInvocation } from './tool-table.js';

/**
 * The example of docs/tools.md ("Adding a tool"): one spec, one handler, one
 * test. The tool runs through the real dispatcher on a real thread (SQLite
 * store, event log, hooks), as the turn loop runs every call.
 */

// 1. The spec: a zod schema; the JSON Schema the model sees is derived from it.
// 2. The handler: what the call does, with the checked arguments.
const countLinesTool = defineTool({
  name: 'count_lines',
  description: 'Count the lines of a text file of the project.',
  args: z.object({ path: z.string().min(1).max(4096).describe('File path relative to the project root') }),
  async run(args, { turn }: ToolInvocation<{ readonly cwd: string }>) {
    const text = await fs.promises.readFile(await resolveInside(new LocalFiles(), turn.cwd, args.path), 'utf8');
    return { success: true, output: `${args.path}: ${text.split('\n').length} lines` };
  },
});

// 3. The test.
let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});

it('count_lines answers the model, is recorded in the thread, and refuses arguments its schema refuses', async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-add-tool-'));
  fs.writeFileSync(path.join(home, 'notes.txt'), 'one\ntwo\nthree');
  const provider = mockProvider(mock, 'chat');
  const runtime = createTestRuntime({
    home,
    startMcpServers: false,
    defaults: { cwd: home },
    bindModel: async () => ({ client: createModelClient(provider), model: 'deepseek-chat', contextWindow: 128_000 }),
  });
  try {
    const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
    const call = settledCaller(runtime, ctx);
    // A real turn for the calls to belong to.
    mock.enqueue([{ type: 'text', text: 'Ready.' }, { type: 'finish' }]);
    const { thread } = await call('thread/start', {});
    const { turn: started } = await call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await waitUntil(() => (runtime.turns.activeTurnId(thread.id) === null ? true : undefined), {
      what: 'the turn to end',
      wakeOn: (wake) => runtime.events.subscribe(wake),
    });
    const turn: ActiveTurn = {
      id: started.id,
      threadId: thread.id,
      store: runtime.threads.require(thread.id).store,
      ephemeral: false,
      cwd: home,
      ordinal: 0,
      startedAtMs: Date.now(),
      controller: new AbortController(),
      pendingInput: [],
      liveItems: new Map(),
      model: null,
      usage: ZERO_USAGE,
      done: Promise.resolve(),
      review: null,
    };
    const tools = await new ToolTable<ActiveTurn>().register(countLinesTool).forTurn({ threadId: thread.id, hasGoal: false });
    expect(tools.specs).toEqual([
      {
        name: 'count_lines',
        description: 'Count the lines of a text file of the project.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', minLength: 1, maxLength: 4096, description: 'File path relative to the project root' } },
          required: ['path'],
          additionalProperties: false,
        },
      },
    ]);
    let ids = 0;
    const deps = { events: runtime.events, hooks: runtime.services.hooks, newId: () => `example-${++ids}`, now: Date.now };
    const good = await dispatchToolCall(turn, { id: 'c1', name: 'count_lines', arguments: '{"path":"notes.txt"}' }, tools, deps);
    expect(good).toEqual({ success: true, output: 'notes.txt: 3 lines' });
    const bad = await dispatchToolCall(turn, { id: 'c2', name: 'count_lines', arguments: '{"path":""}' }, tools, deps);
    expect(bad).toMatchObject({ success: false, output: expect.stringMatching(/^Invalid arguments for count_lines: path: /) });
    const { items } = await call('thread/read', { threadId: thread.id });
    expect(items.filter((item) => item.type === 'dynamicToolCall').map((item) => [item.tool, item.status, item.output])).toEqual([
      ['count_lines', 'completed', 'notes.txt: 3 lines'],
      ['count_lines', 'failed', bad.output],
    ]);
  } finally {
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
