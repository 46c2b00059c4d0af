import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  CONFIG_CODEX_NULLS,
  RpcError,
  type ConfigChangedNotification,
  type ConfigEdit,
  type configMethods,
  type MethodHandlers,
  type ProviderSummary,
  type ResultOf,
} from '../../shared/protocol/index.js';
import { SecretStoreError, type SecretStore } from '../secrets/secret-store.js';
import { codexConfigOf, configOrigins } from './codex-config-view.js';
import { codeWhaleEdits, defaultCodeWhalePath, readCodeWhaleConfig } from './codewhale-import.js';
import { ConfigError } from './config-error.js';
import type { ConfigService } from './config-service.js';
import { KeyPathError } from './key-path.js';
import { listProviderModels, type ListModels } from './model-catalog.js';
import { ProviderNotFoundError, type ProviderResolver } from './providers.js';

export interface ConfigHandlerDeps {
  readonly configService: ConfigService;
  readonly secretStore: SecretStore;
  readonly providers: ProviderResolver;
  readonly listModels: ListModels;
  /** Announces `config/changed`; the payload never holds a key. */
  readonly notify: (change: ConfigChangedNotification) => void;
}

/** The handlers of the config/* and model/list methods. */
// The config methods read no connection state, so they fit any carrier's context.
export type ConfigHandlers = Pick<MethodHandlers<unknown>, keyof typeof configMethods>;

/** Handlers for settings: config.toml, provider keys, CodeWhale import, model lists. */
export function createConfigHandlers(deps: ConfigHandlerDeps): ConfigHandlers {
  const { configService, secretStore, providers } = deps;
  return {
    'config/read': () => guard(() => readConfig(deps)),
    'config/value/write': (params) => guard(() => write(deps, [params])),
    'config/batchWrite': (params) => guard(() => write(deps, params.edits)),
    'config/provider/setApiKey': (params) =>
      guard(async () => {
        providers.require(params.providerId);
        await secretStore.set(params.providerId, params.apiKey.trim());
        deps.notify({ reason: 'apiKeySet', keyPaths: [], providerId: params.providerId });
        return keyState(deps, params.providerId);
      }),
    'config/provider/clearApiKey': (params) =>
      guard(async () => {
        providers.require(params.providerId);
        if (await secretStore.delete(params.providerId)) {
          deps.notify({ reason: 'apiKeyCleared', keyPaths: [], providerId: params.providerId });
        }
        return keyState(deps, params.providerId);
      }),
    'config/import/codewhale': (params) =>
      guard(() => {
        const plan = readCodeWhaleConfig(params.path ? path.resolve(params.path) : defaultCodeWhalePath());
        const hasProvider = configService.current().config.model_provider !== undefined;
        const { edits, modelProvider, model } = codeWhaleEdits(plan, hasProvider);
        if (edits.length > 0) {
          const keyPaths = configService.applyEdits(edits);
          deps.notify({ reason: 'import', keyPaths, providerId: null });
        }
        return {
          sourcePath: plan.sourcePath,
          filePath: configService.filePath,
          providers: [...plan.providers],
          modelProvider,
          model,
          skipped: [...plan.skipped],
        };
      }),
    'model/list': (params) =>
      guard(async () => {
        const provider = providers.require(params.providerId ?? params.modelProvider ?? configService.modelProvider());
        const resolved = await providers.resolve(provider.id);
        const configured = { modelProvider: configService.modelProvider(), model: configService.model() };
        return listProviderModels(provider, resolved, configured, deps.listModels);
      }),
  };
}

async function readConfig(deps: ConfigHandlerDeps): Promise<ResultOf<'config/read'>> {
  await deps.secretStore.ready?.();
  const snapshot = deps.configService.current();
  let storeError: string | null = null;
  const summaries = await Promise.all(
    deps.configService.providers().map(async (provider): Promise<ProviderSummary> => {
      const key = await deps.providers.apiKey(provider);
      storeError ??= key.storeError;
      return {
        id: provider.id,
        name: provider.name,
        baseUrl: provider.baseUrl,
        wireApi: provider.wireApi,
        envKey: provider.envKey,
        hasApiKey: key.apiKey !== null,
        keySource: key.source,
        requiresApiKey: provider.requiresApiKey,
        builtIn: provider.builtIn,
        defaultModel: provider.defaultModel,
      };
    }),
  );
  const description = deps.secretStore.describe();
  const model = deps.configService.model();
  const approvalPolicy = snapshot.config.approval_policy ?? null;
  const sandboxMode = snapshot.config.sandbox_mode ?? null;
  return {
    config: {
      ...codexConfigOf(snapshot.document),
      model,
      model_provider: deps.configService.modelProvider(),
      approval_policy: approvalPolicy === 'on-failure' ? 'on-request' : approvalPolicy,
      sandbox_mode: sandboxMode,
      ...CONFIG_CODEX_NULLS,
    },
    origins: configOrigins(snapshot.document, snapshot.filePath, fileVersion(snapshot.filePath)),
    layers: null,
    filePath: snapshot.filePath,
    model,
    modelProvider: deps.configService.modelProvider(),
    approvalPolicy,
    sandboxMode,
    providers: summaries,
    loadError: snapshot.error?.toLoadError() ?? null,
    secretStorage: {
      kind: deps.secretStore.kind,
      available: deps.secretStore.available,
      description: storeError ? `${description} ${storeError}` : description,
      location: deps.secretStore.location(),
    },
    notifications: deps.configService.notificationPreferences(),
  };
}

function write(deps: ConfigHandlerDeps, edits: readonly ConfigEdit[]): ResultOf<'config/value/write'> {
  const keyPaths = deps.configService.applyEdits(edits);
  deps.notify({ reason: 'write', keyPaths, providerId: null });
  return { status: 'ok', filePath: deps.configService.filePath, version: fileVersion(deps.configService.filePath), overriddenMetadata: null };
}

/** Codex's config version: a digest of the file as written (empty when there is none). */
function fileVersion(filePath: string): string {
  let text = '';
  try {
    text = fs.readFileSync(filePath, 'utf8');
  } catch {
    // no file yet: the version of an empty config
  }
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

async function keyState(deps: ConfigHandlerDeps, providerId: string): Promise<ResultOf<'config/provider/setApiKey'>> {
  const key = await deps.providers.apiKey(deps.providers.require(providerId));
  return { providerId, hasApiKey: key.apiKey !== null, keySource: key.source };
}

/** Runs a handler body and turns the config layer's typed errors into protocol errors. */
async function guard<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toRpcError(error);
  }
}

/** The config layer's typed errors as protocol errors; each reason brings its own JSON-RPC code. */
function toRpcError(error: unknown): unknown {
  if (error instanceof KeyPathError) return RpcError.because('config.badKeyPath', error.message, { keyPath: error.keyPath });
  if (error instanceof ProviderNotFoundError) return RpcError.because('config.providerNotFound', error.message, { providerId: error.providerId });
  if (error instanceof ConfigError) {
    const { filePath, line, column, keyPath } = error;
    return RpcError.because(`config.${error.kind}`, error.message, { filePath, line, column, keyPath });
  }
  if (error instanceof SecretStoreError) {
    return RpcError.because(`secretStorage.${error.reason}`, error.message, { providerId: error.providerId, envKey: error.envKey });
  }
  return error;
}
