import type { ConfigEdit, ConfigReadResult, ProviderSummary, UnsavedProvider, WireApi } from '../../../shared/protocol/methods/config.js';

/**
 * The provider part of first run and Settings as plain data: which choice the
 * form shows for the current config, whether a config can run a turn, and the
 * config.toml edits a filled-in form becomes. No requests here.
 */

/** The choices on the provider step. */
export type ProviderKind = 'deepseek' | 'openai' | 'ollama' | 'lmstudio' | 'other';

export const PROVIDER_KINDS: readonly ProviderKind[] = ['deepseek', 'openai', 'ollama', 'lmstudio', 'other'];

/** What the provider form holds. */
export interface ProviderForm {
  readonly kind: ProviderKind;
  /** A key typed now; empty keeps the stored one. */
  readonly apiKey: string;
  /** Server address (local and other providers). */
  readonly baseUrl: string;
  /** Display name of an "other" provider; its id is made from it. */
  readonly name: string;
  readonly wireApi: WireApi;
  /** Environment variable holding an "other" provider's key, when keys cannot be stored. */
  readonly envKey: string;
  /** Optional default model. */
  readonly model: string;
  /** An existing "other" provider being edited (e.g. an imported one); absent for a new provider. */
  readonly providerId?: string;
}

/** Where each built-in local server listens unless told otherwise. */
export const LOCAL_DEFAULT_URLS: Readonly<Record<'ollama' | 'lmstudio', string>> = {
  ollama: 'http://localhost:11434/v1',
  lmstudio: 'http://localhost:1234/v1',
};

const BUILT_IN: readonly string[] = ['deepseek', 'openai', 'ollama', 'lmstudio'];

/** The provider a new turn would use, if it can: known, and with a key when it needs one. */
export function isUsable(config: ConfigReadResult): boolean {
  const provider = activeProvider(config);
  return provider !== null && (!provider.requiresApiKey || provider.hasApiKey);
}

function activeProvider(config: ConfigReadResult): ProviderSummary | null {
  return config.providers.find((p) => p.id === config.modelProvider) ?? null;
}

const BLANK_FORM: ProviderForm = { kind: 'deepseek', apiKey: '', baseUrl: '', name: '', wireApi: 'chat', envKey: '', model: '' };

/** The form as the current config fills it in. */
export function formFromConfig(config: ConfigReadResult): ProviderForm {
  const provider = activeProvider(config);
  return provider ? formForProvider(provider, config.model ?? '') : BLANK_FORM;
}

/** The form for one configured provider: its built-in choice, or an "other" provider edited in place. */
export function formForProvider(provider: ProviderSummary, model: string): ProviderForm {
  if (BUILT_IN.includes(provider.id)) {
    return { ...BLANK_FORM, kind: provider.id as ProviderKind, baseUrl: provider.baseUrl, model };
  }
  return {
    ...BLANK_FORM,
    kind: 'other',
    providerId: provider.id,
    name: provider.name,
    baseUrl: provider.baseUrl,
    wireApi: provider.wireApi,
    envKey: provider.envKey ?? '',
    model: model || (provider.defaultModel ?? ''),
  };
}

/** The provider id a form writes: the built-in id, the edited provider's id, or one made from an "other" provider's name. */
export function providerIdFor(form: ProviderForm): string {
  if (form.kind !== 'other') return form.kind;
  if (form.providerId) return form.providerId;
  const slug = form.name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  const id = slug || 'custom';
  return BUILT_IN.includes(id) ? `${id}-custom` : id;
}

/** What is wrong with the form, field by field (empty when it can be saved). */
export function formProblems(form: ProviderForm): Partial<Record<'baseUrl' | 'name' | 'envKey' | 'apiKey', string>> {
  const problems: Partial<Record<'baseUrl' | 'name' | 'envKey' | 'apiKey', string>> = {};
  if (form.kind === 'other' && form.name.trim() === '') problems.name = 'Give the provider a name.';
  if (form.kind === 'other' || form.kind === 'ollama' || form.kind === 'lmstudio') {
    if (!isHttpUrl(form.baseUrl.trim())) problems.baseUrl = 'Enter an address starting with http:// or https://.';
  }
  if (form.envKey.trim() !== '' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(form.envKey.trim())) {
    problems.envKey = 'Use letters, digits and “_” only.';
  }
  if (/\s/.test(form.apiKey.trim())) problems.apiKey = 'A key is one word, without spaces.';
  return problems;
}

/** The config.toml edits that make the form's provider (and model) the default. */
export function configEditsFor(form: ProviderForm): ConfigEdit[] {
  const id = providerIdFor(form);
  const model = form.model.trim();
  const edits: ConfigEdit[] = [];
  switch (form.kind) {
    case 'deepseek':
    case 'openai':
      break;
    case 'ollama':
    case 'lmstudio': {
      const url = form.baseUrl.trim();
      edits.push({
        keyPath: `model_providers.${id}.base_url`,
        value: url === LOCAL_DEFAULT_URLS[form.kind] ? null : url,
      });
      break;
    }
    case 'other': {
      const table: Record<string, string> = { name: form.name.trim(), base_url: form.baseUrl.trim(), wire_api: form.wireApi };
      if (form.envKey.trim() !== '') table['env_key'] = form.envKey.trim();
      edits.push({ keyPath: `model_providers.${id}`, value: table, mergeStrategy: 'replace' });
      break;
    }
    default:
      return assertNever(form.kind);
  }
  edits.push({ keyPath: 'model_provider', value: id });
  edits.push({ keyPath: 'model', value: model === '' ? null : model });
  return edits;
}

/** Whether the form shows what is saved: the same config.toml edits, and no key typed. */
export function isFormSaved(form: ProviderForm, config: ConfigReadResult): boolean {
  if (form.apiKey.trim() !== '') return false;
  return JSON.stringify(configEditsFor(form)) === JSON.stringify(configEditsFor(formFromConfig(config)));
}

/** The form as model/test's `unsaved` settings: tested as typed, nothing written. */
export function unsavedProviderFor(form: ProviderForm): UnsavedProvider {
  const key = form.apiKey.trim();
  const url = form.baseUrl.trim();
  const withKey = key === '' ? {} : { apiKey: key };
  switch (form.kind) {
    case 'deepseek':
    case 'openai':
      return withKey;
    case 'ollama':
    case 'lmstudio':
      return { baseUrl: url || LOCAL_DEFAULT_URLS[form.kind], ...withKey };
    case 'other':
      return {
        name: form.name.trim(),
        baseUrl: url,
        wireApi: form.wireApi,
        envKey: form.envKey.trim() || null,
        ...withKey,
      };
    default:
      return assertNever(form.kind);
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function assertNever(value: never): never {
  throw new Error(`unknown provider kind: ${String(value)}`);
}
