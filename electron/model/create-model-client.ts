import { ChatCompletionsClient } from './chat-completions-client.js';
import { ResponsesClient } from './responses-client.js';
import { withRedactedErrors } from './secret-redaction.js';
import type { ModelClient, ResolvedProvider } from './types.js';

/**
 * The ModelClient for a provider's wire (Codex `wire_api`: 'chat' or
 * 'responses'); its errors never carry the provider's key.
 */
export function createModelClient(provider: ResolvedProvider): ModelClient {
  return withRedactedErrors(wireClient(provider), [provider.apiKey]);
}

function wireClient(provider: ResolvedProvider): ModelClient {
  switch (provider.wireApi) {
    case 'chat':
      return new ChatCompletionsClient(provider);
    case 'responses':
      return new ResponsesClient(provider);
    default: {
      const unreachable: never = provider.wireApi;
      throw new Error(`unknown wire API ${String(unreachable)}`);
    }
  }
}
