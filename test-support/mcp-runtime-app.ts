import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnyNotification, ClientMethod, ParamsOf, Turn } from '../shared/protocol/index.js';
import { createModelClient } from '../electron/model/create-model-client.js';
import type { RequestContext } from '../electron/runtime/context.js';
import type { RuntimeOptions } from '../electron/host/compose-runtime.js';
import type { Runtime } from '../electron/host/runtime.js';
import type { MockModelServer } from './mock-model/index.js';
import { mockProvider } from './mock-model/model-test-kit.js';
import { createTestRuntime } from './test-runtime.js';
import { waitUntil } from './waiting.js';

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

export interface McpRuntimeAppOptions {
  /** An existing home (a restart); default: a new one with `configToml`, removed at cleanup. */
  readonly home?: string;
  readonly runtime?: Pick<RuntimeOptions, 'loginEnvironment'>;
}

/**
 * A runtime on a real home with MCP servers from `configToml` and the mock
 * model, plus what MCP tests ask of it: requests, every notification seen,
 * and waits for notifications (already seen or still to come).
 */
export function mcpRuntimeApp(mock: MockModelServer, cleanups: Array<() => Promise<void> | void>, configToml: string, options: McpRuntimeAppOptions = {}) {
  const home = options.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'wh-mcp-'));
  if (!options.home) fs.writeFileSync(path.join(home, 'config.toml'), configToml);
  const provider = mockProvider(mock, 'chat');
  const runtime: Runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    bindModel: async () => ({ client: createModelClient(provider), model: 'deepseek-chat', contextWindow: 128_000 }),
    ...options.runtime,
  });
  cleanups.push(async () => {
    await runtime.shutdown();
    if (!options.home) fs.rmSync(home, { recursive: true, force: true });
  });
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  const call = <M extends ClientMethod>(m: M, p: ParamsOf<M>) => runtime.dispatcher.call(m, p, ctx);
  /** Resolves with the first notification (already seen or future) that matches. */
  const waitFor = (match: (n: AnyNotification) => boolean, after = 0, what = 'a matching notification') =>
    waitUntil(() => seen.slice(after).find(match), { what, wakeOn: (wake) => runtime.events.subscribe(wake) });
  const status = (name: string, state: string, after = 0) =>
    waitFor((n) => n.method === 'mcpServer/startupStatus/updated' && n.params.name === name && n.params.status === state, after);
  const startupDone = () => waitFor((n) => n.method === 'mcpServer/startupStatus/completed');
  const turnDone = (after: number) => waitFor((n) => n.method === 'turn/completed', after).then((n) => (n.params as { turn: Turn }).turn);
  return { runtime, home, seen, call, waitFor, status, startupDone, turnDone };
}
