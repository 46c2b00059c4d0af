import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { mockModelConfig } from './agent-commands.js';
import { killAllChildren } from './child-process.js';
import { expectNoRunsLeft } from './detached-runs.js';
import { startMockModelServer, type MockModelServer } from './mock-model/index.js';
import type { ProtocolPeer } from './protocol-peer.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { TempDirs } from './temp-dir.js';
import { connectWs } from './ws-peer.js';

/** What a carrier test of the agent over `wheelhouse serve` works with. */
export interface ServedAgentHomes {
  /** The file's mock model (started before its first test). */
  readonly mock: MockModelServer;
  readonly temp: TempDirs;
  /** A home configured for the mock model (plus `extraToml`), and an empty project folder. */
  makeHome(prefix: string, extraToml?: string): { home: string; project: string };
  /** `wheelhouse serve` on that home, stopped after the test. */
  serve(home: string): Promise<ServeProcess>;
  /** A WebSocket client, initialized as `name` (every message checked against Codex's schema). */
  client(server: ServeProcess, name: string): Promise<ProtocolPeer>;
}

/**
 * Registers the hooks the agent's carrier tests share: one mock model per
 * file; after each test every server stopped, stray processes killed and
 * temporary folders removed.
 */
export function useServedAgentHomes(): ServedAgentHomes {
  let mock: MockModelServer | undefined;
  const temp = new TempDirs();
  const servers: ServeProcess[] = [];
  const homes: string[] = [];
  beforeAll(async () => {
    mock = await startMockModelServer();
  });
  afterAll(async () => {
    await mock?.close();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await killAllChildren();
    try {
      for (const home of homes) expectNoRunsLeft(home);
    } finally {
      homes.length = 0;
      temp.cleanup();
    }
  });
  const started = (): MockModelServer => {
    if (!mock) throw new Error('the mock model server has not started (use it inside a test)');
    return mock;
  };
  return {
    get mock() {
      return started();
    },
    temp,
    makeHome(prefix, extraToml = '') {
      const home = temp.make(prefix);
      homes.push(home);
      const project = temp.make('wheelhouse-project-');
      fs.writeFileSync(path.join(home, 'config.toml'), mockModelConfig(started()) + extraToml);
      return { home, project };
    },
    async serve(home) {
      const server = await startServe({ home });
      servers.push(server);
      return server;
    },
    async client(server, name) {
      const { peer } = await connectWs(server.wsUrl);
      await peer.initialize(name);
      return peer;
    },
  };
}
