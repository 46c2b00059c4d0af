import { CircleAlert, CircleCheck, CircleMinus, Import, LoaderCircle, TriangleAlert } from 'lucide-react';
import { useId, useState } from 'react';
import type { ConfigImportCodeWhaleResult, ConfigReadResult } from '../../../../shared/protocol/methods/config.js';
import { useSetupStore } from '../../services/services.js';

const DEFAULT_PATH = '~/.codewhale/config.toml';

/** The import state of the panel. */
type ImportState =
  | { readonly status: 'idle' }
  | { readonly status: 'running' }
  | { readonly status: 'done'; readonly result: ConfigImportCodeWhaleResult }
  | { readonly status: 'failed'; readonly message: string };

/** Opens the CodeWhale import: a button in Settings, a quiet link on first run. */
export function CodeWhaleImportToggle({
  firstRun,
  open,
  onToggle,
}: {
  readonly firstRun: boolean;
  readonly open: boolean;
  readonly onToggle: () => void;
}) {
  return firstRun ? (
    <button type="button" className="button-link codewhale-toggle" aria-expanded={open} data-testid="codewhale-open" onClick={onToggle}>
      Using CodeWhale? Import its providers
    </button>
  ) : (
    <button
      type="button"
      className="button button-secondary button-small codewhale-toggle"
      aria-expanded={open}
      data-testid="codewhale-open"
      onClick={onToggle}
    >
      <Import size={13} strokeWidth={2} aria-hidden="true" />
      Import from CodeWhale
    </button>
  );
}

/**
 * Imports the providers of a CodeWhale config.toml (default location, or a
 * typed path) and says what came over, what became the default and what was
 * left out and why.
 */
export function CodeWhaleImportPanel({ onImported }: { readonly onImported: (config: ConfigReadResult, result: ConfigImportCodeWhaleResult) => void }) {
  const importCodeWhale = useSetupStore((s) => s.importCodeWhale);
  const [path, setPath] = useState('');
  const [state, setState] = useState<ImportState>({ status: 'idle' });
  const inputId = useId();
  const hintId = useId();
  const running = state.status === 'running';

  const run = async () => {
    setState({ status: 'running' });
    const outcome = await importCodeWhale(path.trim() || null);
    if (outcome.ok) {
      setState({ status: 'done', result: outcome.result });
      onImported(outcome.config, outcome.result);
    } else {
      setState({ status: 'failed', message: outcome.message });
    }
  };

  return (
    <div className="codewhale-panel" data-testid="codewhale-import">
      <div className="field">
        <label className="field-label" htmlFor={inputId}>
          CodeWhale config file
          <span className="field-optional">optional</span>
        </label>
        <div className="codewhale-row">
          <input
            id={inputId}
            className="field-input field-mono"
            data-testid="codewhale-path"
            spellCheck={false}
            autoComplete="off"
            placeholder={DEFAULT_PATH}
            aria-describedby={hintId}
            aria-invalid={state.status === 'failed'}
            value={path}
            onChange={(event) => {
              setPath(event.target.value);
              if (state.status === 'failed') setState({ status: 'idle' });
            }}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !running) {
                event.preventDefault();
                void run();
              }
            }}
          />
          <button type="button" className="button button-secondary" data-testid="codewhale-run" disabled={running} onClick={() => void run()}>
            {running ? <LoaderCircle size={14} className="spin" aria-hidden="true" /> : <Import size={14} strokeWidth={2} aria-hidden="true" />}
            {running ? 'Importing…' : 'Import'}
          </button>
        </div>
        <p id={hintId} className="field-hint">
          Leave empty for {DEFAULT_PATH}. Providers and models are added to Wheelhouse; API keys are never copied.
        </p>
      </div>
      {state.status === 'failed' && (
        <p className="codewhale-error" role="alert" data-testid="codewhale-error">
          <CircleAlert size={15} strokeWidth={2} aria-hidden="true" />
          <span>{state.message}</span>
        </p>
      )}
      {state.status === 'done' && <ImportSummary result={state.result} />}
    </div>
  );
}

/** What an import did, in words. */
function ImportSummary({ result }: { readonly result: ConfigImportCodeWhaleResult }) {
  const count = result.providers.length;
  return (
    <div className="codewhale-result" role="status" data-testid="codewhale-result">
      <p className="codewhale-result-title">
        {count > 0 ? (
          <CircleCheck size={15} strokeWidth={2} className="codewhale-good" aria-hidden="true" />
        ) : (
          <TriangleAlert size={15} strokeWidth={2} className="codewhale-warn" aria-hidden="true" />
        )}
        <span>
          {count > 0 ? `Imported ${count} ${count === 1 ? 'provider' : 'providers'} from ` : 'Found no providers to import in '}
          <code>{result.sourcePath}</code>
        </span>
      </p>
      {count > 0 && (
        <ul className="codewhale-list">
          {result.providers.map((provider) => (
            <li key={provider.id} data-testid="codewhale-imported" data-provider-id={provider.id}>
              <span className="codewhale-id">{provider.id}</span>
              {provider.id === result.modelProvider && <span className="codewhale-badge">default</span>}
              <span className="codewhale-meta">
                {provider.model ? <>model <code>{provider.model}</code></> : 'no model set'}
                {' · '}
                {provider.envKey ? <>key from <code>{provider.envKey}</code></> : 'no key variable'}
              </span>
            </li>
          ))}
        </ul>
      )}
      {count > 0 && (
        <p className="codewhale-note" data-testid="codewhale-default">
          {result.modelProvider ? (
            <>
              <strong>{result.modelProvider}</strong> is now the default provider
              {result.model ? (
                <>
                  , with <code>{result.model}</code>.
                </>
              ) : (
                ', with its default model.'
              )}
            </>
          ) : (
            'Your default provider was kept. Choose an imported one under Saved providers to use it.'
          )}
        </p>
      )}
      {result.skipped.length > 0 && (
        <div className="codewhale-skipped" data-testid="codewhale-skipped">
          <p className="codewhale-skipped-title">Not imported</p>
          <ul className="codewhale-list">
            {result.skipped.map((entry) => (
              <li key={entry.name}>
                <CircleMinus size={13} strokeWidth={2} className="codewhale-muted" aria-hidden="true" />
                <code>{entry.name}</code>
                <span className="codewhale-meta">{entry.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
