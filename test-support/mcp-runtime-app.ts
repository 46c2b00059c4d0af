import type { MockAgentKit, MockAgentOptions } from './mock-agent-kit.js';

/**
 * A mock-agent runtime with MCP servers from `configToml` (written to a fresh
 * home; an existing `home` keeps its own), plus the waits MCP tests ask for:
 * a server's startup status and the end of startup.
 */
export function mcpRuntimeApp(kit: MockAgentKit, configToml: string, options: Pick<MockAgentOptions, 'home' | 'runtime'> = {}) {
  const agent = kit.agent({ configToml, homePrefix: 'wh-mcp-', ...options });
  const status = (name: string, state: string, after = 0) =>
    agent.waitFor((n) => n.method === 'mcpServer/startupStatus/updated' && n.params.name === name && n.params.status === state, after, `${name} to be ${state}`);
  const startupDone = () => agent.waitFor((n) => n.method === 'mcpServer/startupStatus/completed', 0, 'MCP startup to complete');
  return { ...agent, status, startupDone };
}
