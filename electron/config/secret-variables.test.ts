import { describe, expect, it } from 'vitest';
import { parseConfigText } from './config-file.js';
import { secretVariableNames } from './secret-variables.js';

describe('the names of secret variables', () => {
  it('are the built-in providers’ keys, every configured env_key (a table too broken to use included) and MCP bearer token variables', () => {
    const document = parseConfigText(
      [
        '[model_providers.deepseek]',
        'env_key = "MY_DEEPSEEK_KEY"',
        '[model_providers.broken]',
        'env_key = "BROKEN_PROVIDER_KEY"',
        'wire_api = "not-a-wire"',
        '[mcp_servers.remote]',
        'url = "https://mcp.example.com/mcp"',
        'bearer_token_env_var = "REMOTE_MCP_TOKEN"',
        '[mcp_servers.local]',
        'command = "server"',
        'env = { NOT_A_SECRET_NAME = "x" }',
      ].join('\n'),
      'config.toml',
    );
    expect([...secretVariableNames({ document })].sort()).toEqual(
      ['BROKEN_PROVIDER_KEY', 'DEEPSEEK_API_KEY', 'MY_DEEPSEEK_KEY', 'OPENAI_API_KEY', 'REMOTE_MCP_TOKEN'].sort(),
    );
  });
});
