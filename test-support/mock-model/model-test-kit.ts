import type { ModelRequest, ModelStreamEvent, ResolvedProvider, WireApi } from '../../electron/model/types.js';
import type { MockModelServer } from './server.js';

/** A provider pointing at the mock server; retries off and a short idle timeout unless overridden. */
export function mockProvider(
  mock: Pick<MockModelServer, 'url'>,
  wireApi: WireApi,
  overrides: Partial<ResolvedProvider> = {},
): ResolvedProvider {
  return {
    id: 'mock',
    name: 'Mock Provider',
    baseUrl: mock.url,
    wireApi,
    envKey: 'MOCK_API_KEY',
    apiKey: 'sk-mock-key',
    requiresApiKey: true,
    requestMaxRetries: 0,
    streamMaxRetries: 0,
    streamIdleTimeoutMs: 5_000,
    httpHeaders: {},
    ...overrides,
  };
}

/** A minimal request: one user message, no tools. */
export function userRequest(content: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'deepseek-chat',
    instructions: 'You are a careful coding agent.',
    messages: [{ role: 'user', content }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Everything a stream yielded, and what it threw (null when it finished). */
export interface CollectedStream {
  readonly events: ModelStreamEvent[];
  readonly error: unknown;
}

/** Drains a model stream, keeping events yielded before a failure. */
export async function collectStream(
  stream: AsyncIterable<ModelStreamEvent>,
  onEvent?: (event: ModelStreamEvent) => void,
): Promise<CollectedStream> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      onEvent?.(event);
    }
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

/** The concatenated text deltas of a stream. */
export function textOf(events: readonly ModelStreamEvent[]): string {
  return events.map((e) => (e.type === 'textDelta' ? e.delta : '')).join('');
}

/** The concatenated raw reasoning deltas of a stream. */
export function reasoningOf(events: readonly ModelStreamEvent[]): string {
  return events.map((e) => (e.type === 'reasoningDelta' ? e.delta : '')).join('');
}

/** The concatenated reasoning summary deltas of a stream. */
export function reasoningSummaryOf(events: readonly ModelStreamEvent[]): string {
  return events.map((e) => (e.type === 'reasoningSummaryDelta' ? e.delta : '')).join('');
}
