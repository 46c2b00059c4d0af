import { startAppServer, type AppServerOptions, type AppServerProcess } from './app-server-process.js';
import { useMockModelHomes, type MockModelHomes } from './mock-model-homes.js';

/** What a carrier test of the agent over `wheelhouse app-server` works with. */
export interface StdioAgentHomes extends MockModelHomes {
  /** `wheelhouse app-server` on `home` (every message checked against Codex's schema), stopped after the test. */
  start(home: string, options?: AppServerOptions): AppServerProcess;
  /** The same, initialized as `name`. */
  client(home: string, name?: string, options?: AppServerOptions): Promise<AppServerProcess>;
}

/**
 * The agent's carrier tests over stdio: one mock model per file; after each
 * test every app-server still running is stopped as a user stops it
 * (SIGTERM: turns end, commands' process trees are killed), stray processes
 * killed and temporary folders removed. The WebSocket counterpart is
 * test-support/served-agent-home.ts.
 */
export function useStdioAgentHomes(): StdioAgentHomes {
  const servers: AppServerProcess[] = [];
  const homes = useMockModelHomes(async () => {
    for (const server of servers.splice(0)) await server.process.stop('SIGTERM');
  });
  const start = (home: string, options?: AppServerOptions) => {
    const server = startAppServer(home, options);
    servers.push(server);
    return server;
  };
  return {
    get mock() {
      return homes.mock;
    },
    temp: homes.temp,
    makeHome: homes.makeHome,
    start,
    async client(home, name, options) {
      const server = start(home, options);
      await server.peer.initialize(name);
      return server;
    },
  };
}
