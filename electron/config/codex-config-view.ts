import type { TomlTable } from 'smol-toml';

/*
 * Codex 0.169's resolved values for the config keys a config.toml leaves
 * unset, as its `config/read` answers them. Wheelhouse reads none of these
 * keys; it reports Codex's defaults so a Codex client finds every key it
 * expects (issue 18), and what the file sets wins (kept verbatim).
 */

const CODEX_CONFIG_DEFAULTS: Readonly<Record<string, unknown>> = {
  agents: null,
  allow_login_shell: true,
  allow_symlinked_codex_home: null,
  apps_mcp_product_sku: null,
  audio: null,
  auto_review: null,
  background_terminal_max_timeout: 300000,
  chatgpt_base_url: 'https://chatgpt.com/backend-api/',
  check_for_update_on_startup: null,
  cli_auth_credentials_store: 'file',
  cloud: null,
  daybreak: null,
  default_permissions: null,
  disable_paste_burst: null,
  experimental_compact_prompt_file: null,
  experimental_realtime_start_instructions: null,
  experimental_realtime_webrtc_call_base_url: null,
  experimental_realtime_ws_backend_prompt: null,
  experimental_realtime_ws_base_url: null,
  experimental_realtime_ws_model: null,
  experimental_realtime_ws_startup_context: null,
  experimental_thread_store: null,
  experimental_thread_store_endpoint: null,
  experimental_use_unified_exec_tool: null,
  feedback: null,
  file_opener: 'vscode',
  ghost_snapshot: null,
  goals: null,
  hide_agent_reasoning: false,
  history: { persistence: 'save-all', max_bytes: null },
  hooks: null,
  include_apps_instructions: true,
  include_collaboration_mode_instructions: true,
  include_environment_context: true,
  include_environment_context_time: true,
  include_permissions_instructions: true,
  js_repl_node_module_dirs: null,
  js_repl_node_path: null,
  log_dir: null,
  marketplaces: {},
  mcp_enterprise_managed_auth: null,
  mcp_oauth_callback_port: null,
  mcp_oauth_callback_url: null,
  mcp_oauth_credentials_store: 'auto',
  mcp_optional_startup_grace_ms: null,
  memories: null,
  model_catalog_json: null,
  model_instructions_file: null,
  model_post_turn_compact_threshold_percent: null,
  notice: null,
  notify: null,
  openai_base_url: null,
  orchestrator: null,
  oss_provider: null,
  otel: null,
  permissions: null,
  personality: null,
  plan_mode_reasoning_effort: null,
  plugins: {},
  profile: null,
  profiles: {},
  project_doc_fallback_filenames: [],
  project_doc_max_bytes: 32768,
  project_root_markers: ['.git'],
  projects: null,
  realtime: null,
  responses_api_metadata: null,
  shell_environment_policy: { inherit: null, ignore_default_excludes: null, exclude: null, set: null, include_only: null, filters: null, experimental_use_profile: null },
  show_raw_agent_reasoning: null,
  skills: null,
  sqlite_home: null,
  suppress_unstable_features_warning: null,
  thread_unload_delay_secs: null,
  tool_output_token_limit: null,
  tool_suggest: null,
  tui: null,
  windows: null,
};

const CODEX_FEATURE_DEFAULTS: Readonly<Record<string, unknown>> = {
  api_key_cyber_access_programs: true,
  api_key_model_discovery: true,
  auth_elicitation: true,
  background_paginated_rollout_migration: false,
  codex_apps_mcp_2026_07_28: false,
  daybreak_program_propagation: false,
  mcp_2026_07_28: false,
  mcp_connection_sharing: false,
  mcp_lazy_stdio_startup: false,
  memories: false,
  mentions_v2: true,
  network_proxy: null,
  remote_control: false,
  remote_models: false,
  remote_plugin: true,
  tool_suggest: true,
  windows_sandbox_service: false,
};

/** A `[model_providers.<id>]` table's keys the file leaves unset. */
const CODEX_PROVIDER_DEFAULTS: Readonly<Record<string, unknown>> = {
  auth: null,
  aws: null,
  capabilities: null,
  credential_file: null,
  env_http_headers: null,
  env_key_instructions: null,
  experimental_bearer_token: null,
  gateway_oauth: null,
  http_headers: null,
  location: null,
  model_catalog_url: null,
  project_id: null,
  query_params: null,
  requires_openai_auth: false,
  stream_idle_timeout_ms: null,
  supports_standalone_web_search: false,
  supports_websockets: false,
  websocket_connect_timeout_ms: null,
};

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Codex's `config` beside Wheelhouse's typed keys: Codex's defaults, then
 * every key of config.toml as written (unknown ones too), with each
 * provider table filled with Codex's provider defaults.
 */
export function codexConfigOf(document: TomlTable): Record<string, unknown> {
  const file = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  const providers = isTable(file.model_providers) ? file.model_providers : {};
  return {
    ...CODEX_CONFIG_DEFAULTS,
    ...file,
    features: { ...CODEX_FEATURE_DEFAULTS, ...(isTable(file.features) ? file.features : {}) },
    mcp_servers: isTable(file.mcp_servers) ? file.mcp_servers : {},
    model_providers: Object.fromEntries(
      Object.entries(providers).map(([id, table]) => [id, { ...CODEX_PROVIDER_DEFAULTS, ...(isTable(table) ? table : {}) }]),
    ),
  };
}

/** Codex's `ConfigLayerMetadata`: the layer a key was set in (Wheelhouse has one, the user's config.toml) and its version. */
export interface ConfigOrigin {
  readonly name: { readonly type: 'user'; readonly file: string; readonly profile: null };
  readonly version: string;
}

/** Codex's `origins`: every value config.toml sets, by dotted key path (a table's leaves; an array is one value). */
export function configOrigins(document: TomlTable, filePath: string, version: string): Record<string, ConfigOrigin> {
  const origin: ConfigOrigin = { name: { type: 'user', file: filePath, profile: null }, version };
  const origins: Record<string, ConfigOrigin> = {};
  const visit = (table: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(table)) {
      const keyPath = prefix ? `${prefix}.${key}` : key;
      if (isTable(value)) visit(value, keyPath);
      else origins[keyPath] = origin;
    }
  };
  visit(document, '');
  return origins;
}
