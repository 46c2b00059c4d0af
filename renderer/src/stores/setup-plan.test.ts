import { describe, expect, it } from 'vitest';
import { CONFIG_CODEX_NULLS, DEFAULT_NOTIFICATION_PREFERENCES, type ConfigReadResult, type ProviderSummary } from '../../../shared/protocol/methods/config.js';
import {
  configEditsFor,
  formForProvider,
  formFromConfig,
  formProblems,
  isUsable,
  isFormSaved,
  providerIdFor,
  unsavedProviderFor,
  type ProviderForm,
} from './setup-plan.js';

const provider = (id: string, patch: Partial<ProviderSummary> = {}): ProviderSummary => ({
  id,
  name: id,
  baseUrl: `https://${id}.example/v1`,
  wireApi: 'chat',
  envKey: null,
  hasApiKey: false,
  keySource: 'none',
  requiresApiKey: false,
  builtIn: true,
  defaultModel: null,
  ...patch,
});

const config = (modelProvider: string, providers: ProviderSummary[]): ConfigReadResult => ({
  config: { model: null, model_provider: modelProvider, approval_policy: null, sandbox_mode: null, ...CONFIG_CODEX_NULLS },
  origins: {},
  layers: null,
  filePath: '/home/ada/.wheelhouse/config.toml',
  model: null,
  modelProvider,
  approvalPolicy: null,
  sandboxMode: null,
  providers,
  loadError: null,
  secretStorage: { kind: 'os-keychain', available: true, description: '', location: null },
  notifications: DEFAULT_NOTIFICATION_PREFERENCES,
});

const form = (patch: Partial<ProviderForm>): ProviderForm => ({
  kind: 'other',
  apiKey: '',
  baseUrl: '',
  name: '',
  wireApi: 'chat',
  envKey: '',
  model: '',
  ...patch,
});

describe('first run', () => {
  it('shows when the chosen provider needs a key it does not have', () => {
    const deepseek = provider('deepseek', { requiresApiKey: true, envKey: 'DEEPSEEK_API_KEY' });
    expect(isUsable(config('deepseek', [deepseek]))).toBe(false);
    expect(isUsable(config('deepseek', [{ ...deepseek, hasApiKey: true, keySource: 'keychain' }]))).toBe(true);
    expect(isUsable(config('ollama', [provider('ollama')]))).toBe(true);
    expect(isUsable(config('gone', [deepseek]))).toBe(false);
  });

  it('writes an "other" provider as its own table and makes it the default', () => {
    const other = form({ name: 'Team Gateway!', baseUrl: ' http://127.0.0.1:9000/v1 ', wireApi: 'responses', model: 'big-model' });
    expect(providerIdFor(other)).toBe('team-gateway');
    expect(configEditsFor(other)).toEqual([
      {
        keyPath: 'model_providers.team-gateway',
        value: { name: 'Team Gateway!', base_url: 'http://127.0.0.1:9000/v1', wire_api: 'responses' },
        mergeStrategy: 'replace',
      },
      { keyPath: 'model_provider', value: 'team-gateway' },
      { keyPath: 'model', value: 'big-model' },
    ]);
    expect(providerIdFor(form({ name: 'OpenAI' }))).toBe('openai-custom');
  });

  it('writes a local server address only when it differs from the default', () => {
    expect(configEditsFor(form({ kind: 'ollama', baseUrl: 'http://localhost:11434/v1' }))[0]).toEqual({
      keyPath: 'model_providers.ollama.base_url',
      value: null,
    });
    expect(configEditsFor(form({ kind: 'lmstudio', baseUrl: 'http://10.0.0.5:1234/v1' }))[0]).toEqual({
      keyPath: 'model_providers.lmstudio.base_url',
      value: 'http://10.0.0.5:1234/v1',
    });
  });

  it('names what is missing before anything is written', () => {
    expect(formProblems(form({}))).toEqual({ name: 'Give the provider a name.', baseUrl: expect.any(String) });
    expect(formProblems(form({ name: 'x', baseUrl: 'ftp://x' })).baseUrl).toMatch(/http/);
    expect(formProblems(form({ kind: 'deepseek', apiKey: 'sk one' })).apiKey).toMatch(/one word/);
    expect(formProblems(form({ kind: 'deepseek' }))).toEqual({});
  });

  it('fills the form in from the configuration', () => {
    const custom = provider('gw', { name: 'Gateway', baseUrl: 'http://gw/v1', wireApi: 'responses', builtIn: false, defaultModel: 'm' });
    expect(formFromConfig(config('gw', [custom]))).toMatchObject({ kind: 'other', name: 'Gateway', baseUrl: 'http://gw/v1', wireApi: 'responses', model: 'm' });
    expect(formFromConfig(config('openai', [provider('openai')]))).toMatchObject({ kind: 'openai' });
  });

  it('saves an existing provider (e.g. an imported one) under its own id, even when renamed', () => {
    const imported = provider('acme_gw', { name: 'acme_gw', baseUrl: 'http://acme/v1', builtIn: false, defaultModel: 'acme-coder' });
    const edited = { ...formForProvider(imported, ''), name: 'Acme gateway' };
    expect(edited).toMatchObject({ kind: 'other', providerId: 'acme_gw', model: 'acme-coder' });
    expect(providerIdFor(edited)).toBe('acme_gw');
    expect(configEditsFor(edited)).toContainEqual({ keyPath: 'model_provider', value: 'acme_gw' });
  });
});

describe('Test connection', () => {
  it('sends the form as typed, to be tried without saving', () => {
    expect(unsavedProviderFor(form({ name: ' Box ', baseUrl: 'http://127.0.0.1:9/v1', envKey: 'BOX_KEY', apiKey: ' sk-1 ' }))).toEqual({
      name: 'Box',
      baseUrl: 'http://127.0.0.1:9/v1',
      wireApi: 'chat',
      envKey: 'BOX_KEY',
      apiKey: 'sk-1',
    });
    expect(unsavedProviderFor(form({ kind: 'deepseek' }))).toEqual({});
    expect(unsavedProviderFor(form({ kind: 'ollama' }))).toEqual({ baseUrl: 'http://localhost:11434/v1' });
  });

  it('tells a saved provider from one with unsaved edits or a typed key', () => {
    const saved = config('deepseek', [provider('deepseek', { envKey: 'DEEPSEEK_API_KEY', requiresApiKey: true })]);
    const shown = formFromConfig(saved);
    expect(isFormSaved(shown, saved)).toBe(true);
    // A built-in's address is not written, so passing through another choice and back changes nothing.
    expect(isFormSaved({ ...shown, baseUrl: '' }, saved)).toBe(true);
    expect(isFormSaved({ ...shown, apiKey: 'sk-new' }, saved)).toBe(false);
    expect(isFormSaved({ ...shown, model: 'deepseek-reasoner' }, saved)).toBe(false);
    expect(isFormSaved({ ...shown, kind: 'openai' }, saved)).toBe(false);
  });
});
