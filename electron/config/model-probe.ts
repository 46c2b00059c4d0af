import { RpcError, type HandlerParamsOf, type ModelTestResult } from '../../shared/protocol/index.js';
import { redactSecrets } from '../model/secret-redaction.js';
import { ModelError, type ModelClient, type ModelRequest, type ResolvedProvider } from '../model/types.js';
import type { ConfigService } from './config-service.js';
import { pickDefaultModel } from './model-catalog.js';
import { ProviderNotFoundError, type ProviderResolver } from './providers.js';

export interface ModelProbeDeps {
  readonly configService: ConfigService;
  readonly providers: ProviderResolver;
  /** Builds the client for a resolved provider (the app: createModelClient). */
  readonly createClient: (provider: ResolvedProvider) => ModelClient;
  readonly now?: () => number;
  /** How long the whole check may take before it is reported as a timeout. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Enough of the answer to show that the model replied. */
const MAX_REPLY_CHARS = 200;
const PROBE_REQUEST = {
  instructions: 'You are checking that a connection works. Answer in one short line.',
  messages: [{ role: 'user', content: 'Reply with the single word: ready' }],
  tools: [],
} as const satisfies Omit<ModelRequest, 'model' | 'signal'>;

/**
 * The "Test" button of first run and Settings: one real, short request
 * through the provider's model client, exactly as a turn would make it (same
 * key lookup, same wire), but without retries so a wrong URL or key answers
 * at once. Failures come back as `ok: false` with the model layer's words; only
 * an unknown provider id is a protocol error.
 */
export async function probeModel(
  deps: ModelProbeDeps,
  params: HandlerParamsOf<'model/test'>,
): Promise<ModelTestResult> {
  const result = await probe(deps, params);
  if (result.ok) return result;
  // The provider's words may quote a key: none of the known ones, nor anything key-shaped, leaves here.
  const secrets = await deps.providers.knownApiKeys().catch(() => []);
  return { ...result, error: { ...result.error, message: redactSecrets(result.error.message, secrets) } };
}

async function probe(deps: ModelProbeDeps, params: HandlerParamsOf<'model/test'>): Promise<ModelTestResult> {
  const now = deps.now ?? Date.now;
  const started = now();
  let provider;
  try {
    provider = deps.providers.require(params.providerId);
  } catch (error) {
    if (error instanceof ProviderNotFoundError) throw RpcError.invalidParams(error.message, { providerId: error.providerId });
    throw error;
  }
  const resolved = await deps.providers.resolve(provider.id);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = deps.createClient({
    ...resolved,
    requestMaxRetries: 0,
    streamMaxRetries: 0,
    streamIdleTimeoutMs: Math.min(resolved.streamIdleTimeoutMs, timeoutMs),
  });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let model: string | null = params.model ?? null;
  const failed = (error: ModelError): ModelTestResult => ({
    ok: false,
    latencyMs: now() - started,
    model,
    error: { kind: error.kind, message: error.message },
  });
  try {
    if (resolved.requiresApiKey && resolved.apiKey === null) {
      const env = resolved.envKey ? `, or set the environment variable ${resolved.envKey}` : '';
      return failed(new ModelError('configuration', `No API key for ${resolved.name}. Enter one in Settings${env}.`));
    }
    if (model === null || model === 'auto') {
      const configured = { modelProvider: deps.configService.modelProvider(), model: deps.configService.model() };
      model = pickDefaultModel(provider, configured, []) ?? (await client.listModels(controller.signal))[0]?.id ?? null;
    }
    if (model === null) {
      return failed(new ModelError('configuration', `${resolved.name} lists no models. Load a model in it, or name one in Settings.`));
    }
    let reply = '';
    for await (const event of client.stream({ ...PROBE_REQUEST, model, signal: controller.signal })) {
      if (event.type === 'textDelta' && reply.length < MAX_REPLY_CHARS) reply += event.delta;
    }
    return { ok: true, latencyMs: now() - started, model, reply: reply.trim().slice(0, MAX_REPLY_CHARS) };
  } catch (error) {
    if (controller.signal.aborted) {
      const seconds = Math.round(timeoutMs / 1000);
      return failed(new ModelError('timeout', `${resolved.name} did not answer within ${seconds} s. Check the address and that the server is running.`));
    }
    if (error instanceof ModelError) return failed(error);
    const message = error instanceof Error ? error.message : String(error);
    return failed(new ModelError('other', `Talking to ${resolved.name} failed unexpectedly: ${message}`));
  } finally {
    clearTimeout(timer);
  }
}
