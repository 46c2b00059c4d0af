import { KeyRound, ShieldAlert } from 'lucide-react';
import { useEffect, useId, useRef, useState, type ReactNode, type RefObject } from 'react';
import { keyStorageWords } from '../../format/key-storage.js';
import { useSetupStore } from '../../services/services.js';
import type { ConfigReadResult, ProviderSummary } from '../../../../shared/protocol/methods/config.js';
import { formForProvider, LOCAL_DEFAULT_URLS, PROVIDER_KINDS, providerIdFor, type ProviderForm, type ProviderKind } from '../../stores/setup-plan.js';

interface ProviderChoice {
  readonly title: string;
  readonly text: string;
  readonly monogram: string;
}

const CHOICES: Readonly<Record<ProviderKind, ProviderChoice>> = {
  deepseek: { title: 'DeepSeek', text: 'Low-cost, capable coding models', monogram: 'DS' },
  openai: { title: 'OpenAI', text: 'GPT-5 and the o-series models', monogram: 'AI' },
  ollama: { title: 'Ollama', text: 'Models running on this computer', monogram: 'OL' },
  lmstudio: { title: 'LM Studio', text: 'Models running on this computer', monogram: 'LM' },
  other: { title: 'Other', text: 'Any OpenAI-compatible server', monogram: '+' },
};

const KEY_PAGES: Partial<Record<ProviderKind, string>> = {
  deepseek: 'https://platform.deepseek.com/api_keys',
  openai: 'https://platform.openai.com/api-keys',
};

export type FormProblems = Partial<Record<'baseUrl' | 'name' | 'envKey' | 'apiKey', string>>;

/** Provider choice and its details: key, server address, name and API style, model. */
export function ProviderSection({
  form,
  config,
  problems,
  editKeyRequest,
  modelInput,
  onChange,
}: {
  readonly form: ProviderForm;
  readonly config: ConfigReadResult;
  readonly problems: FormProblems;
  /** Changes when an error's "Edit key" asks for the key field. */
  readonly editKeyRequest: number;
  /** The model field, for an error whose action is to choose another model. */
  readonly modelInput: RefObject<HTMLInputElement | null>;
  readonly onChange: (change: Partial<ProviderForm>) => void;
}) {
  const summary = config.providers.find((p) => p.id === providerIdFor(form)) ?? null;
  const choose = (kind: ProviderKind) => {
    if (kind === form.kind && form.providerId === undefined) return;
    const known = config.providers.find((p) => p.id === kind);
    onChange({
      kind,
      providerId: undefined,
      // Leaving a saved provider starts a new one rather than renaming it.
      ...(form.providerId !== undefined ? { name: '', envKey: '' } : {}),
      apiKey: '',
      baseUrl: kind === 'ollama' || kind === 'lmstudio' ? (known?.baseUrl ?? LOCAL_DEFAULT_URLS[kind]) : '',
      model: '',
    });
  };
  return (
    <>
      <div className="provider-grid" role="radiogroup" aria-label="Model provider">
        {PROVIDER_KINDS.map((kind) => {
          const choice = CHOICES[kind];
          const selected = kind === form.kind;
          return (
            <button
              key={kind}
              type="button"
              role="radio"
              aria-checked={selected}
              className="provider-card"
              data-testid={`provider-${kind}`}
              data-kind={kind}
              onClick={() => choose(kind)}
            >
              <span className="provider-monogram" aria-hidden="true">
                {choice.monogram}
              </span>
              <span className="provider-card-title">{choice.title}</span>
              <span className="provider-card-text">{choice.text}</span>
            </button>
          );
        })}
      </div>
      <SavedProviders form={form} config={config} onChange={onChange} />
      <div className="provider-details">
        {form.kind === 'other' && <OtherFields form={form} problems={problems} onChange={onChange} />}
        {(form.kind === 'ollama' || form.kind === 'lmstudio') && (
          <TextField
            label="Server address"
            hint={`Where ${CHOICES[form.kind].title} listens; the default is ${LOCAL_DEFAULT_URLS[form.kind]}.`}
            value={form.baseUrl}
            error={problems.baseUrl ?? null}
            mono
            testId="provider-base-url"
            onChange={(baseUrl) => onChange({ baseUrl })}
          />
        )}
        <KeyField form={form} config={config} summary={summary} problems={problems} editKeyRequest={editKeyRequest} onChange={onChange} />
        <TextField
          inputRef={modelInput}
          label="Model"
          optional
          hint={modelHint(form.kind, summary)}
          value={form.model}
          error={null}
          mono
          testId="provider-model"
          placeholder={summary?.defaultModel ?? 'The first model the server lists'}
          onChange={(model) => onChange({ model })}
        />
      </div>
    </>
  );
}

/** Providers from config.toml that are not among the cards (added by hand or imported), to pick and edit. */
function SavedProviders({
  form,
  config,
  onChange,
}: {
  readonly form: ProviderForm;
  readonly config: ConfigReadResult;
  readonly onChange: (change: Partial<ProviderForm>) => void;
}) {
  const saved = config.providers.filter((p) => !p.builtIn);
  if (saved.length === 0) return null;
  const current = form.kind === 'other' ? providerIdFor(form) : null;
  return (
    <div className="saved-providers">
      <span className="field-label" id="saved-providers-label">
        Saved providers
      </span>
      <div className="saved-provider-list" role="radiogroup" aria-labelledby="saved-providers-label">
        {saved.map((provider) => (
          <button
            key={provider.id}
            type="button"
            role="radio"
            aria-checked={provider.id === current}
            className="saved-provider"
            data-testid="saved-provider"
            data-provider-id={provider.id}
            title={provider.baseUrl}
            onClick={() => onChange({ ...formForProvider(provider, ''), apiKey: '' })}
          >
            <span className="saved-provider-name">{provider.name}</span>
            {provider.defaultModel && <span className="saved-provider-model">{provider.defaultModel}</span>}
          </button>
        ))}
      </div>
    </div>
  );
}

function OtherFields({
  form,
  problems,
  onChange,
}: {
  readonly form: ProviderForm;
  readonly problems: FormProblems;
  readonly onChange: (change: Partial<ProviderForm>) => void;
}) {
  return (
    <>
      <div className="field-pair">
        <TextField
          label="Name"
          value={form.name}
          error={problems.name ?? null}
          testId="provider-name"
          placeholder="e.g. Team gateway"
          onChange={(name) => onChange({ name })}
        />
        <div className="field">
          <span className="field-label" id="wire-label">
            API style
          </span>
          <div className="segmented" role="radiogroup" aria-labelledby="wire-label">
            {(['chat', 'responses'] as const).map((wire) => (
              <button
                key={wire}
                type="button"
                role="radio"
                aria-checked={form.wireApi === wire}
                className="segment"
                data-testid={`wire-${wire}`}
                onClick={() => onChange({ wireApi: wire })}
              >
                {wire === 'chat' ? 'Chat Completions' : 'Responses'}
              </button>
            ))}
          </div>
        </div>
      </div>
      <TextField
        label="Base URL"
        hint="The address of the API, usually ending in /v1."
        value={form.baseUrl}
        error={problems.baseUrl ?? null}
        mono
        testId="provider-base-url"
        placeholder="https://llm.example.com/v1"
        onChange={(baseUrl) => onChange({ baseUrl })}
      />
    </>
  );
}

/**
 * The API key: a field to type it in, everywhere a key is needed, and a plain
 * sentence on where it is kept. A saved key shows as saved, with Replace; an
 * "Edit key" action elsewhere (`editKeyRequest` changes) opens the field and focuses it.
 */
function KeyField({
  form,
  config,
  summary,
  problems,
  editKeyRequest,
  onChange,
}: {
  readonly form: ProviderForm;
  readonly config: ConfigReadResult;
  readonly summary: ProviderSummary | null;
  readonly problems: FormProblems;
  readonly editKeyRequest: number;
  readonly onChange: (change: Partial<ProviderForm>) => void;
}) {
  const [replacing, setReplacing] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const removeApiKey = useSetupStore((s) => s.removeApiKey);
  const input = useRef<HTMLInputElement>(null);
  const handled = useRef(0);
  useEffect(() => {
    if (editKeyRequest === handled.current) return;
    handled.current = editKeyRequest;
    setReplacing(true);
  }, [editKeyRequest]);
  useEffect(() => {
    if (replacing && handled.current > 0) input.current?.focus();
  }, [replacing]);
  const local = form.kind === 'ollama' || form.kind === 'lmstudio';
  if (local) return null;
  const storage = config.secretStorage;
  const words = keyStorageWords(storage);

  if (words === null) return <NoKeyStorage form={form} summary={summary} problems={problems} onChange={onChange} />;

  if (summary?.hasApiKey && !replacing) {
    return (
      <div className="field">
        <span className="field-label">API key</span>
        <div className="key-saved" data-testid="key-saved">
          <KeyRound size={14} strokeWidth={1.9} aria-hidden="true" />
          <span>{summary.keySource === 'environment' ? `Using the key in the environment variable ${summary.envKey}` : words.saved}</span>
          <span className="key-saved-actions">
            <button type="button" className="button-link" data-testid="key-replace" onClick={() => setReplacing(true)}>
              Replace
            </button>
            {summary.keySource === 'keychain' && (
              <button
                type="button"
                className="button-link"
                data-testid="key-remove"
                onClick={() => void removeApiKey(summary.id).then(setRemoveError)}
              >
                Remove
              </button>
            )}
          </span>
        </div>
        {removeError && (
          <p className="field-error" role="alert">
            {removeError}
          </p>
        )}
      </div>
    );
  }

  const page = KEY_PAGES[form.kind];
  return (
    <TextField
      inputRef={input}
      label="API key"
      optional={form.kind === 'other'}
      secret
      hint={
        <>
          {page ? (
            <>
              Create one at{' '}
              <a href={page} target="_blank" rel="noopener noreferrer">
                {page.replace(/^https:\/\//, '')}
              </a>
              .{' '}
            </>
          ) : (
            'Leave empty if the server needs no key. '
          )}
          <span data-testid="key-storage">{words.where}</span>
        </>
      }
      value={form.apiKey}
      error={problems.apiKey ?? null}
      mono
      testId="provider-api-key"
      placeholder={form.kind === 'deepseek' ? 'sk-…' : form.kind === 'openai' ? 'sk-proj-…' : 'Optional'}
      onChange={(apiKey) => onChange({ apiKey })}
    />
  );
}

/** A host built to keep no keys (an embedder's choice): the key comes from an environment variable, named here. */
function NoKeyStorage({
  form,
  summary,
  problems,
  onChange,
}: {
  readonly form: ProviderForm;
  readonly summary: ProviderSummary | null;
  readonly problems: FormProblems;
  readonly onChange: (change: Partial<ProviderForm>) => void;
}) {
  const envKey = form.kind === 'other' ? form.envKey.trim() || null : (summary?.envKey ?? null);
  return (
    <div className="field field-stack">
      <div className="callout callout-warning" data-testid="no-secure-storage">
        <ShieldAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
        <div>
          <p className="callout-title">This Wheelhouse keeps no API keys</p>
          <p>
            {envKey ? (
              <>
                It reads the key from the environment variable <code>{envKey}</code>, set before Wheelhouse starts.
              </>
            ) : (
              <>Name the environment variable it should read the key from.</>
            )}
          </p>
          {summary?.keySource === 'environment' && <p className="callout-ok">A key was found in {envKey}.</p>}
        </div>
      </div>
      {form.kind === 'other' && (
        <TextField
          label="Key environment variable"
          optional
          value={form.envKey}
          error={problems.envKey ?? null}
          mono
          testId="provider-env-key"
          placeholder="e.g. GATEWAY_API_KEY"
          onChange={(value) => onChange({ envKey: value })}
        />
      )}
    </div>
  );
}

function TextField({
  inputRef,
  label,
  hint,
  value,
  error,
  optional = false,
  mono = false,
  secret = false,
  placeholder,
  testId,
  onChange,
}: {
  readonly inputRef?: RefObject<HTMLInputElement | null>;
  readonly label: string;
  readonly hint?: ReactNode;
  readonly value: string;
  readonly error: string | null;
  readonly optional?: boolean;
  readonly mono?: boolean;
  readonly secret?: boolean;
  readonly placeholder?: string;
  readonly testId: string;
  readonly onChange: (value: string) => void;
}) {
  const id = useId();
  const hintId = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
        {optional && <span className="field-optional">optional</span>}
      </label>
      <input
        ref={inputRef}
        id={id}
        className={mono ? 'field-input field-mono' : 'field-input'}
        data-testid={testId}
        type={secret ? 'password' : 'text'}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error !== null}
        aria-describedby={hint || error ? hintId : undefined}
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      {error ? (
        <p id={hintId} className="field-error" role="alert">
          {error}
        </p>
      ) : (
        hint && (
          <p id={hintId} className="field-hint">
            {hint}
          </p>
        )
      )}
    </div>
  );
}

function modelHint(kind: ProviderKind, summary: ProviderSummary | null): string {
  if (summary?.defaultModel) return `Leave empty for ${summary.defaultModel}. You can switch models in any conversation.`;
  return kind === 'ollama' || kind === 'lmstudio'
    ? 'Leave empty to use the first model the server has loaded.'
    : 'Leave empty to use the first model the server lists.';
}
