import { RpcError, type HandlerParamsOf, type ModelTestResult } from '../../shared/protocol/index.js';
import type { UnsavedProvider } from '../../shared/protocol/methods/config.js';
import { cannotConnect, displayAddress } from '../model/model-errors.js';
import { redactSecrets } from '../model/secret-redaction.js';
import type { ProviderTable } from './config-schema.js';
import { ModelError, type ModelClient, type ModelRequest, type ResolvedProvider } from '../model/types.js';
import type { ConfigService } from './config-service.js';
import { pickDefaultModel } from './model-catalog.js';
import { addedProvider, overlay, ProviderNotFoundError, type ProviderResolver } from './providers.js';
import type { ProviderConfig } from './builtin-providers.js';

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
/** How long the reachability check before a missing-key report may take. */
const REACHABILITY_TIMEOUT_MS = 5_000;
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
 * at once. `unsaved` settings are tried without writing anything. Failures
 * come back as `ok: false` with the model layer's words; only an unknown
 * provider id is a protocol error.
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
  const provider = providerUnderTest(deps.providers, params.providerId, params.unsaved);
  const resolved = await deps.providers.resolveConfig(provider, params.unsaved?.apiKey);
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
    error: { kind: error.kind, message: error.message, address: error.address },
  });
  try {
    if (resolved.requiresApiKey && resolved.apiKey === null) {
      // Say first whether the server answers at all: a wrong address is the bigger problem.
      if (!(await answers(resolved.baseUrl, controller.signal))) return failed(cannotConnect(displayAddress(resolved.baseUrl), null));
      return failed(new ModelError('missingKey', `${resolved.name} needs an API key, and none was given.`));
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

/** The saved provider, with the form's unsaved settings applied; a new one when only the form has it. */
function providerUnderTest(providers: ProviderResolver, providerId: string, unsaved: UnsavedProvider | undefined): ProviderConfig {
  const table: ProviderTable = {
    ...(unsaved?.name !== undefined ? { name: unsaved.name } : {}),
    ...(unsaved?.baseUrl !== undefined ? { base_url: unsaved.baseUrl } : {}),
    ...(unsaved?.wireApi !== undefined ? { wire_api: unsaved.wireApi } : {}),
    ...(unsaved?.envKey ? { env_key: unsaved.envKey } : {}),
  };
  let saved: ProviderConfig | undefined;
  try {
    saved = providers.require(providerId);
  } catch (error) {
    if (!(error instanceof ProviderNotFoundError)) throw error;
    if (unsaved?.baseUrl === undefined) throw RpcError.because('config.providerNotFound', error.message, { providerId: error.providerId });
  }
  if (!unsaved) return saved!;
  // A provider the form defines whole (not a built-in) is tested as typed, not merged with an older save.
  if ((!saved || !saved.builtIn) && unsaved.baseUrl !== undefined) return addedProvider(providerId, { ...table, base_url: unsaved.baseUrl });
  return overlay(saved!, table);
}

/** Whether anything answers HTTP at the provider's address (any status counts). */
async function answers(baseUrl: string, signal: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(baseUrl, { method: 'GET', signal: AbortSignal.any([signal, AbortSignal.timeout(REACHABILITY_TIMEOUT_MS)]) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
