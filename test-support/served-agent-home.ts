import { useMockModelHomes, type MockModelHomes } from './mock-model-homes.js';
import type { ProtocolPeer } from './protocol-peer.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { connectWs } from './ws-peer.js';

/** What a carrier test of the agent over `wheelhouse serve` works with. */
export interface ServedAgentHomes extends MockModelHomes {
  /** `wheelhouse serve` on that home, stopped after the test. */
  serve(home: string): Promise<ServeProcess>;
  /** A WebSocket client, initialized as `name` (every message checked against Codex's schema). */
  client(server: ServeProcess, name: string): Promise<ProtocolPeer>;
}

/**
 * The agent's carrier tests over WebSocket: one mock model per file; after
 * each test every server stopped, stray processes killed and temporary
 * folders removed. test-support/stdio-agent-home.ts is the same over stdio.
 */
export function useServedAgentHomes(): ServedAgentHomes {
  const servers: ServeProcess[] = [];
  const homes = useMockModelHomes(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });
  return {
    get mock() {
      return homes.mock;
    },
    temp: homes.temp,
    makeHome: homes.makeHome,
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
