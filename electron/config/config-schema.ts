import { z } from 'zod';
import { AskForApproval, ProviderId, SandboxMode, WireApi } from '../../shared/protocol/index.js';
import { BUILTIN_PROVIDERS, isBuiltInProvider } from './builtin-providers.js';
import { McpServers } from './mcp-config.js';

const HttpUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');

const EnvVarName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits and "_")');

const Retries = z.number().int('must be a whole number').min(0).max(100);

/** One `[model_providers.<id>]` table (Codex keys, plus Wheelhouse's `default_model`). Unknown keys pass through. */
export const ProviderTable = z.looseObject({
  name: z.string().min(1).max(200).optional(),
  base_url: HttpUrl.optional(),
  wire_api: WireApi.optional(),
  env_key: EnvVarName.optional(),
  request_max_retries: Retries.optional(),
  stream_max_retries: Retries.optional(),
  stream_idle_timeout_ms: z.number().int('must be a whole number').min(1_000).max(3_600_000).optional(),
  http_headers: z.record(z.string().min(1), z.string()).optional(),
  default_model: z.string().min(1).max(200).optional(),
});
export type ProviderTable = z.infer<typeof ProviderTable>;

/** Events a `[[hooks.<Event>]]` group may name (Codex's config keys for its HookEventName values). */
export const HOOK_CONFIG_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PermissionRequest', 'Stop'] as const;
export type HookConfigEvent = (typeof HOOK_CONFIG_EVENTS)[number];

/** One `[[hooks.<Event>.hooks]]` command (Codex's command handler, plus `name` for messages). */
export const HookCommandTable = z.object({
  type: z.literal('command').default('command'),
  /** A string runs through the user's shell; an array is argv. */
  command: z.union([z.string().min(1).max(10_000), z.array(z.string().max(10_000)).min(1).max(256)]),
  name: z.string().min(1).max(200).optional(),
  timeout_sec: z.number().int('must be a whole number').min(1).max(3_600).optional(),
  status_message: z.string().max(500).optional(),
});
export type HookCommandTable = z.infer<typeof HookCommandTable>;

/** An array whose dropped entries (holes left by salvageConfigDocument) are skipped, so one bad hook does not cost its neighbours. */
function salvageableArray<T extends z.ZodType>(item: T, max: number) {
  return z.preprocess((value) => (Array.isArray(value) ? value.filter(() => true) : value), z.array(item).max(max));
}

/** One `[[hooks.<Event>]]` group: a matcher (a regular expression over the tool name, for tool events) and its commands. */
export const HookMatcherGroup = z.object({
  matcher: z
    .string()
    .max(1_000)
    .refine((text) => {
      try {
        new RegExp(text);
        return true;
      } catch {
        return false;
      }
    }, 'must be a regular expression')
    .optional(),
  hooks: salvageableArray(HookCommandTable, 64),
});
export type HookMatcherGroup = z.infer<typeof HookMatcherGroup>;

export const HooksTable = z.partialRecord(z.enum(HOOK_CONFIG_EVENTS), salvageableArray(HookMatcherGroup, 64));

/** `[wheelhouse.notifications]`: which events notify the person (absent: on). */
export const NotificationsTable = z.looseObject({
  job_finished: z.boolean().optional(),
  job_failed: z.boolean().optional(),
  approval_needed: z.boolean().optional(),
});

const Megabytes = z.number().int('must be a whole number of megabytes').min(16).max(1_048_576);

/** `[wheelhouse.retention]`: how long and how much Wheelhouse keeps (absent: the defaults for a laptop). */
export const RetentionTable = z.looseObject({
  max_age_days: z.number().int('must be a whole number of days').min(1).max(3_650).optional(),
  event_log_mb: Megabytes.optional(),
  process_logs_mb: Megabytes.optional(),
  job_logs_mb: Megabytes.optional(),
  checkpoints_mb: Megabytes.optional(),
});

/** `[wheelhouse]`: Wheelhouse's own settings, in a table of its own so a Codex config.toml never collides with them. */
export const WheelhouseTable = z.looseObject({
  notifications: NotificationsTable.optional(),
  retention: RetentionTable.optional(),
});

/** The keys of config.toml Wheelhouse reads. Everything else is kept as written. */
export const ConfigDocument = z
  .looseObject({
    model: z.string().min(1).max(200).optional(),
    model_provider: ProviderId.optional(),
    approval_policy: AskForApproval.optional(),
    sandbox_mode: SandboxMode.optional(),
    model_providers: z.record(ProviderId, ProviderTable).optional(),
    hooks: HooksTable.optional(),
    mcp_servers: McpServers.optional(),
    wheelhouse: WheelhouseTable.optional(),
  })
  .superRefine((doc, ctx) => {
    const tables = doc.model_providers ?? {};
    for (const [id, table] of Object.entries(tables)) {
      if (!isBuiltInProvider(id) && table.base_url === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['model_providers', id, 'base_url'],
          message: 'is required for a provider that is not built in',
        });
      }
    }
    const chosen = doc.model_provider;
    if (chosen !== undefined && !isBuiltInProvider(chosen) && tables[chosen] === undefined) {
      const known = [...BUILTIN_PROVIDERS.map((p) => p.id), ...Object.keys(tables)].join(', ');
      ctx.addIssue({
        code: 'custom',
        path: ['model_provider'],
        message: `unknown provider "${chosen}" (known: ${known}); add a [model_providers.${chosen}] table`,
      });
    }
  });
/** The validated settings (unknown keys included, untyped). */
export type WheelhouseConfig = z.output<typeof ConfigDocument>;

/** One rejected value, named by its key path. */
export interface ConfigIssue {
  readonly keyPath: string;
  readonly message: string;
}

/** Validates a whole document strictly: any bad value is an issue. */
export function checkConfigDocument(document: unknown): { config: WheelhouseConfig } | { issues: ConfigIssue[] } {
  const parsed = ConfigDocument.safeParse(document);
  return parsed.success ? { config: parsed.data } : { issues: parsed.error.issues.map(toIssue) };
}

/**
 * Validates leniently for loading: each bad value is dropped (with its
 * issue) and the rest is kept, so one typo does not cost every setting.
 */
export function salvageConfigDocument(document: unknown): { config: WheelhouseConfig; issues: ConfigIssue[] } {
  const working = cloneTables(document);
  const issues: ConfigIssue[] = [];
  for (let round = 0; round < 50; round += 1) {
    const parsed = ConfigDocument.safeParse(working);
    if (parsed.success) return { config: parsed.data, issues };
    for (const issue of parsed.error.issues) {
      issues.push(toIssue(issue));
      removeAt(working, issue.path);
    }
  }
  return { config: {}, issues };
}

function toIssue(issue: z.core.$ZodIssue): ConfigIssue {
  const nested = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
  return { keyPath: formatKeyPath(issue.path), message: nested ?? issue.message };
}

/** `model_providers.local.base_url`; segments that are not bare keys are quoted as TOML would. */
function formatKeyPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map(String)
    .map((segment) => (/^[A-Za-z0-9_-]+$/.test(segment) ? segment : JSON.stringify(segment)))
    .join('.');
}

/** Copies nested tables (leaves are shared) so keys can be dropped without touching the original. */
function cloneTables(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(cloneTables);
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, cloneTables(child)]));
}

/** Removes the value at a path; when the path does not exist (a missing key), removes the nearest existing parent. */
function removeAt(root: unknown, path: readonly PropertyKey[]): void {
  if (path.length === 0) return;
  const holders: unknown[] = [root];
  for (const segment of path.slice(0, -1)) {
    const current = holders[holders.length - 1];
    if (typeof current !== 'object' || current === null) break;
    holders.push((current as Record<PropertyKey, unknown>)[segment]);
  }
  for (let depth = Math.min(path.length, holders.length) - 1; depth >= 0; depth -= 1) {
    const holder = holders[depth];
    const key = path[depth] as PropertyKey;
    if (typeof holder === 'object' && holder !== null && key in holder) {
      delete (holder as Record<PropertyKey, unknown>)[key];
      return;
    }
  }
}
