import { z } from 'zod';
import { defineMethod, defineNotification, oneAtATime } from '../define.js';
import { CodexAskForApproval, nullFields } from '../codex.js';
import { AskForApproval, SandboxMode, TurnErrorKind } from '../thread.js';

/**
 * Settings: the effective config.toml, model providers, API keys and model
 * lists. API keys travel in one direction only (client -> setApiKey); no
 * result or notification ever carries one back.
 */

/** A provider id as it appears in `[model_providers.<id>]`: letters, digits, `-`, `_`. */
export const ProviderId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'provider id may contain only letters, digits, "-" and "_"');

/** Which HTTP API a provider speaks (Codex `wire_api`). */
export const WireApi = z.enum(['chat', 'responses']);
export type WireApi = z.infer<typeof WireApi>;

/** Where a provider's API key comes from; never the key itself. */
export const ApiKeySource = z.enum(['keychain', 'environment', 'none']);
export type ApiKeySource = z.infer<typeof ApiKeySource>;

/**
 * How API keys are kept on this machine: the OS keychain, a file encrypted
 * with the OS keychain (the desktop app), a file only the user can read
 * (mode 0600, where there is no keychain), or nowhere (environment variables only).
 */
export const SecretStorageKind = z.enum(['os-keychain', 'electron-safe-storage', 'private-file', 'environment-only']);
export type SecretStorageKind = z.infer<typeof SecretStorageKind>;

export const ProviderSummary = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  wireApi: WireApi,
  envKey: z.string().nullable(),
  hasApiKey: z.boolean(),
  keySource: ApiKeySource,
  requiresApiKey: z.boolean(),
  /** Shipped with Wheelhouse (a config table may still override its fields). */
  builtIn: z.boolean(),
  defaultModel: z.string().nullable(),
});
export type ProviderSummary = z.infer<typeof ProviderSummary>;

/** Why config.toml could not be used as written; the app runs on defaults for the bad part. */
export const ConfigLoadError = z.object({
  message: z.string(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  /** The offending key (e.g. `model_providers.local.base_url`) when a value was rejected. */
  keyPath: z.string().nullable(),
});
export type ConfigLoadError = z.infer<typeof ConfigLoadError>;

export const SecretStorageInfo = z.object({
  kind: SecretStorageKind,
  available: z.boolean(),
  /** A sentence for Settings: where keys go, or why they cannot be stored. */
  description: z.string(),
  /** The file keys are kept in (`electron-safe-storage`, `private-file`); null for the keychain or nowhere. */
  location: z.string().nullable(),
});
export type SecretStorageInfo = z.infer<typeof SecretStorageInfo>;

/** Codex's `cwd` and `includeLayers` are accepted; Wheelhouse has one config layer (config.toml). */
export const ConfigReadParams = z.object({});

const configNulls = nullFields(
  'analytics',
  'approvals_reviewer',
  'apps',
  'browser_use',
  'client_search_provider',
  'compact_prompt',
  'computer_use',
  'desktop',
  'developer_instructions',
  'forced_chatgpt_workspace_id',
  'forced_login_method',
  'instructions',
  'model_auto_compact_token_limit',
  'model_auto_compact_token_limit_scope',
  'model_context_window',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'review_model',
  'sandbox_workspace_write',
  'service_tier',
  'tools',
  'web_search',
);
/** The Codex config keys Wheelhouse does not use, sent as null. */
export const CONFIG_CODEX_NULLS = configNulls.values;

/**
 * Codex's `Config`: the effective settings under their config.toml names.
 * Like Codex's, open: every other key of the file (and Codex's default for
 * each key it leaves unset) rides along untyped.
 */
export const CodexConfig = z
  .object({
    model: z.string().nullable(),
    model_provider: z.string().nullable(),
    approval_policy: CodexAskForApproval.nullable(),
    sandbox_mode: SandboxMode.nullable(),
    ...configNulls.shape,
  })
  .loose();
export type CodexConfig = z.infer<typeof CodexConfig>;

/** Which events Wheelhouse tells the person about (a desktop notification, or a note in the window). */
export const NotificationPreferences = z.object({
  /** A job finished. */
  jobFinished: z.boolean(),
  /** A job failed for good (not each failure it retries after by itself). */
  jobFailed: z.boolean(),
  /** A command, patch or tool call waits for the person's approval. */
  approvalNeeded: z.boolean(),
});
export type NotificationPreferences = z.infer<typeof NotificationPreferences>;
export type NotificationKind = keyof NotificationPreferences;

/** Every kind is on until the person turns it off. */
export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = { jobFinished: true, jobFailed: true, approvalNeeded: true };

/** Where each preference lives in config.toml (a Wheelhouse table: Codex has no such keys). */
export const NOTIFICATION_PREFERENCE_KEYS: Readonly<Record<NotificationKind, string>> = {
  jobFinished: 'wheelhouse.notifications.job_finished',
  jobFailed: 'wheelhouse.notifications.job_failed',
  approvalNeeded: 'wheelhouse.notifications.approval_needed',
};

/**
 * `config`, `origins` and `layers` are Codex's; the rest is Wheelhouse's view
 * for Settings (providers, key state, load errors).
 */
export const ConfigReadResult = z.object({
  config: CodexConfig,
  /** Codex: where each value config.toml sets came from (Wheelhouse has one layer, the user's file), by dotted key path. */
  origins: z.record(z.string(), z.unknown()),
  layers: z.null(),
  filePath: z.string(),
  /** The configured model (null: the provider's default model is used). */
  model: z.string().nullable(),
  modelProvider: z.string(),
  approvalPolicy: AskForApproval.nullable(),
  sandboxMode: SandboxMode.nullable(),
  providers: z.array(ProviderSummary),
  loadError: ConfigLoadError.nullable(),
  secretStorage: SecretStorageInfo,
  /** `[wheelhouse.notifications]`: which events notify the person. */
  notifications: NotificationPreferences,
});
export type ConfigReadResult = z.infer<typeof ConfigReadResult>;

/** `replace` sets the value as given; `upsert` merges tables key by key. */
export const ConfigMergeStrategy = z.enum(['replace', 'upsert']);
export type ConfigMergeStrategy = z.infer<typeof ConfigMergeStrategy>;

/** One edit: a dotted key path into config.toml and a JSON value (null removes the key). */
export const ConfigEdit = z.object({
  keyPath: z.string().min(1).max(300),
  value: z.json(),
  mergeStrategy: ConfigMergeStrategy.nullable().optional(),
});
export type ConfigEdit = z.infer<typeof ConfigEdit>;

export const ConfigBatchWriteParams = z.object({
  edits: z.array(ConfigEdit).min(1).max(100),
});

export const ConfigWriteResult = z.object({
  status: z.literal('ok'),
  filePath: z.string(),
  /** Codex: a version of the file after the write (`sha256:<hex>` of its text). */
  version: z.string(),
  overriddenMetadata: z.null(),
});

export const ProviderApiKeyParams = z.object({
  providerId: ProviderId,
  apiKey: z
    .string()
    .min(1, 'apiKey must not be empty')
    .max(4096)
    .refine((key) => key.trim().length > 0 && !/\s/.test(key.trim()), 'apiKey must be one word without spaces'),
});

export const ProviderIdParams = z.object({ providerId: ProviderId });

/** A provider's key state after a change. */
export const ProviderKeyStateResult = z.object({
  providerId: z.string(),
  hasApiKey: z.boolean(),
  keySource: ApiKeySource,
});

export const ConfigImportCodeWhaleParams = z.object({
  /** Defaults to `~/.codewhale/config.toml`. */
  path: z.string().min(1).max(4096).nullable().optional(),
});

export const ImportedProvider = z.object({
  id: z.string(),
  baseUrl: z.string().nullable(),
  envKey: z.string().nullable(),
  model: z.string().nullable(),
});

export const ConfigImportCodeWhaleResult = z.object({
  sourcePath: z.string(),
  filePath: z.string(),
  providers: z.array(ImportedProvider),
  /** Set only when config.toml had no `model_provider` yet. */
  modelProvider: z.string().nullable(),
  model: z.string().nullable(),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
});
export type ConfigImportCodeWhaleResult = z.infer<typeof ConfigImportCodeWhaleResult>;

export const ModelListParams = z.object({
  /** Defaults to the configured `model_provider`. */
  providerId: ProviderId.nullable().optional(),
  /** Codex's name for `providerId` (used when `providerId` is absent). */
  modelProvider: ProviderId.nullable().optional(),
  /** Codex's paging and hidden-model switches: every model fits one page, none is hidden. */
  cursor: z.string().nullable().optional(),
  limit: z.number().int().min(0).nullable().optional(),
  includeHidden: z.boolean().nullable().optional(),
});

const modelNulls = nullFields(
  'availabilityNux',
  'availableAccessPrograms',
  'defaultServiceTier',
  'modelSpecialty',
  'multiAgentVersion',
  'upgrade',
  'upgradeInfo',
);
/** The Codex model fields Wheelhouse has no value for. */
export const MODEL_CODEX_NULLS = modelNulls.values;

/** Codex's `Model` plus Wheelhouse's `contextWindow` and `reasoning`. */
export const ModelListEntry = z.object({
  id: z.string(),
  /** Codex: the model name sent to the provider (the same as `id`). */
  model: z.string(),
  displayName: z.string(),
  description: z.string(),
  hidden: z.boolean(),
  isDefault: z.boolean(),
  /** Codex: the effort used when none is chosen (`medium`; `none` for models without reasoning). */
  defaultReasoningEffort: z.string().min(1),
  supportedReasoningEfforts: z.array(z.object({ reasoningEffort: z.string().min(1), description: z.string() })),
  ...modelNulls.shape,
  contextWindow: z.number().int().nullable(),
  reasoning: z.boolean(),
});
export type ModelListEntry = z.infer<typeof ModelListEntry>;

export const ModelListResult = z.object({
  providerId: z.string(),
  data: z.array(ModelListEntry),
  nextCursor: z.null(),
  /** `provider`: the provider's own list; `known`: Wheelhouse's list, because the provider was unreachable. */
  source: z.enum(['provider', 'known']),
  /** Why the provider's list could not be fetched (when `source` is `known`). */
  error: z.string().nullable(),
});
export type ModelListResult = z.infer<typeof ModelListResult>;

/**
 * A provider as typed in the form but not saved: model/test tries it in place
 * of (or on top of) the saved provider with the same id, and writes nothing.
 * A new provider needs `baseUrl`; `apiKey` is used for this one request only.
 */
export const UnsavedProvider = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  wireApi: WireApi.optional(),
  envKey: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .max(200)
    .nullable()
    .optional(),
  apiKey: z.string().min(1).max(8192).optional(),
});
export type UnsavedProvider = z.infer<typeof UnsavedProvider>;

export const ModelTestParams = z.object({
  providerId: ProviderId,
  /** Defaults to the model a new thread on this provider would use. */
  model: z.string().min(1).max(200).nullable().optional(),
  /** Test these settings without saving them (first run's "Test connection" before "Start"). */
  unsaved: UnsavedProvider.optional(),
});

/** The outcome of one real request to a provider: the reply, or why it failed in words a person can act on. */
export const ModelTestResult = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    latencyMs: z.number(),
    model: z.string(),
    /** The start of the model's answer to the test prompt. */
    reply: z.string(),
  }),
  z.object({
    ok: z.literal(false),
    latencyMs: z.number(),
    /** The model that was tried; null when none could be chosen. */
    model: z.string().nullable(),
    /** The cause (one of a closed set, each with its action: FAILURE_ACTIONS), one sentence, and the unreachable address. */
    error: z.object({ kind: TurnErrorKind, message: z.string(), address: z.string().nullable() }),
  }),
]);
export type ModelTestResult = z.infer<typeof ModelTestResult>;

export const ConfigChangedReason = z.enum(['write', 'import', 'apiKeySet', 'apiKeyCleared']);

export const ConfigChangedNotification = z.object({
  reason: ConfigChangedReason,
  /** Key paths that changed in config.toml (empty for key changes). */
  keyPaths: z.array(z.string()),
  /** The provider whose API key changed, for key changes. */
  providerId: z.string().nullable(),
});
export type ConfigChangedNotification = z.infer<typeof ConfigChangedNotification>;

export const configMethods = {
  'config/read': defineMethod(ConfigReadParams, ConfigReadResult, 'Read the effective configuration.'),
  'config/value/write': defineMethod(ConfigEdit, ConfigWriteResult, 'Write one value to config.toml.', oneAtATime('config')),
  'config/batchWrite': defineMethod(
    ConfigBatchWriteParams,
    ConfigWriteResult,
    'Write several values to config.toml at once (all or nothing).',
    oneAtATime('config'),
  ),
  'config/provider/setApiKey': defineMethod(
    ProviderApiKeyParams,
    ProviderKeyStateResult,
    "Store a provider's API key in secure storage.",
    oneAtATime('config'),
  ),
  'config/provider/clearApiKey': defineMethod(
    ProviderIdParams,
    ProviderKeyStateResult,
    "Remove a provider's API key from secure storage.",
    oneAtATime('config'),
  ),
  'config/import/codewhale': defineMethod(
    ConfigImportCodeWhaleParams,
    ConfigImportCodeWhaleResult,
    'Import providers from a CodeWhale config.toml.',
    oneAtATime('config'),
  ),
  'model/list': defineMethod(ModelListParams, ModelListResult, "List a provider's models."),
} as const;

/** The provider check of Settings and first run (kept apart from configMethods: it talks to a model, not to config.toml). */
export const modelProbeMethods = {
  'model/test': defineMethod(ModelTestParams, ModelTestResult, 'Send a one-line prompt to a provider and report how it went.'),
} as const;

export const configNotifications = {
  'config/changed': defineNotification(ConfigChangedNotification, 'Configuration or an API key changed.'),
} as const;
