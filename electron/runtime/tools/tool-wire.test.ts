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

/**
 * What the tool table changed on purpose: the tools whose JSON Schemas were
 * written by hand beside their zod schemas now carry the zod schema's limits
 * (so the model is told what the call is checked against), in zod's key
 * order. Each added keyword, per tool and property.
 */
const INTENTIONAL_ADDITIONS: Record<string, Record<string, Record<string, unknown>>> = {
  exec_command: {
    cmd: { minLength: 1, maxLength: 65536 },
    workdir: { maxLength: 4096 },
    env: { propertyNames: { type: 'string' } },
    timeout_ms: { minimum: 1, maximum: 86400000 },
    yield_time_ms: { minimum: 0, maximum: 300000 },
    justification: { maxLength: 2000 },
  },
  write_stdin: {
    session_id: { minimum: 1, maximum: 9007199254740991 },
    chars: { maxLength: 65536 },
    yield_time_ms: { minimum: 0, maximum: 300000 },
  },
  apply_patch: { input: { minLength: 1, maxLength: 4194304 } },
  job_start: {
    command: { minLength: 1, maxLength: 65536 },
    cwd: { maxLength: 4096 },
    name: { maxLength: 200 },
    timeoutMs: { minimum: 1, maximum: 2592000000 },
    maxAttempts: { minimum: 0, maximum: 10 },
  },
  job_status: { jobId: { minLength: 1, maxLength: 200 } },
  job_output: { jobId: { minLength: 1, maxLength: 200 }, offset: { minimum: 0, maximum: 9007199254740991 }, limit: { minimum: 1, maximum: 1048576 } },
};

const PATHS = { type: 'array', maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 4096 } };

/**
 * Arguments added after the capture, whole as the model is told them:
 * exec_command's escalation (issue 18), as Codex's exec_command takes it.
 */
const PROPERTIES_ADDED_SINCE: Record<string, Record<string, Record<string, unknown>>> = {
  exec_command: {
    sandbox_permissions: {
      type: 'string',
      enum: ['use_default', 'require_escalated', 'with_additional_permissions'],
      description: expect.stringContaining('outside the sandbox (require_escalated'),
    },
    additional_permissions: {
      type: 'object',
      properties: {
        file_system: { type: 'object', properties: { read: PATHS, write: PATHS }, additionalProperties: false },
        network: { type: 'object', properties: { enabled: { type: 'boolean' } }, additionalProperties: false },
      },
      additionalProperties: false,
      description: expect.stringContaining('with_additional_permissions'),
    },
    prefix_rule: { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 4096 }, description: expect.stringContaining('command prefix') },
  },
};

interface WireTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: { properties: Record<string, Record<string, unknown>> } };
}

describe('the tools the model sees', () => {
  it('are what it saw before the tool table, byte for byte, apart from the listed schema limits and arguments added since', async () => {
    const before = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as WireTool[];
    const now = (await toolsSentToTheModel()) as WireTool[];
    expect(now.map((tool) => tool.function.name)).toEqual(before.map((tool) => tool.function.name));
    for (const [index, tool] of now.entries()) {
      const old = before[index]!;
      const added = INTENTIONAL_ADDITIONS[tool.function.name];
      if (!added) {
        expect(JSON.stringify(tool), tool.function.name).toBe(JSON.stringify(old));
        continue;
      }
      expect(tool.function.description).toBe(old.function.description);
      const { properties } = tool.function.parameters;
      const addedSince = PROPERTIES_ADDED_SINCE[tool.function.name] ?? {};
      for (const [name, schema] of Object.entries(addedSince)) expect(properties[name], `${tool.function.name}.${name}`).toEqual(schema);
      const withoutAdditions = Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => !(name in addedSince))
          .map(([name, schema]) => [name, Object.fromEntries(Object.entries(schema).filter(([key]) => !(key in (added[name] ?? {}))))]),
      );
      expect({ ...tool.function.parameters, properties: withoutAdditions }, tool.function.name).toEqual(old.function.parameters);
      for (const [name, keywords] of Object.entries(added)) expect(properties[name], `${tool.function.name}.${name}`).toMatchObject(keywords);
    }
  }, 60_000);
});
