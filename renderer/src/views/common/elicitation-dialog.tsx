import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useElicitationStore } from '../../services/services.js';
import type { PendingElicitation } from '../../stores/elicitation-store.js';
import { elicitationContent, elicitationFields, initialValues, type ElicitationField, type ElicitationValues } from './elicitation-form.js';
import { useFocusTrap } from './use-focus-trap.js';

/**
 * An MCP server's question to the person, as a modal form built from the
 * schema it sent: Accept sends the answers, Decline says no, Cancel (or
 * Escape) dismisses without choosing. A request to visit a web page shows the
 * page's host plainly and opens it only when the person clicks. A kind of
 * request this window cannot draw is still shown, with Decline and Cancel only.
 */
export function ElicitationDialog() {
  const request = useElicitationStore((s) => s.pending[0] ?? null);
  if (!request) return null;
  // A new request gets a fresh form (values, errors, focus).
  return <ElicitationForm key={String(request.requestId)} request={request} />;
}

function ElicitationForm({ request }: { request: PendingElicitation }) {
  const { params } = request;
  const dialog = useRef<HTMLFormElement>(null);
  useFocusTrap(dialog);
  const titleId = useId();
  const messageId = useId();
  const fields = useMemo(() => (params.mode === 'form' ? elicitationFields(params.requestedSchema) : null), [params]);
  const [values, setValues] = useState<ElicitationValues>(() => (fields ? initialValues(fields) : {}));
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('input, select, button[type="submit"], button')?.focus();
  }, []);

  const message = 'message' in params ? params.message : params.description;
  const submit = () => {
    if (!fields) return;
    const checked = elicitationContent(fields, values);
    if (checked.ok) request.answer({ action: 'accept', content: checked.content });
    else {
      setErrors(checked.errors);
      dialog.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    }
  };

  return (
    <div className="dialog-backdrop">
      <form
        ref={dialog}
        className="dialog dialog-small elicitation-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={messageId}
        data-testid="elicitation-dialog"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            request.answer({ action: 'cancel' });
          }
        }}
      >
        <h2 id={titleId} className="dialog-title">
          {params.serverName} asks
        </h2>
        <p id={messageId} className="dialog-text">
          {message}
        </p>
        {params.mode === 'url' ? (
          <UrlRequest url={params.url} />
        ) : fields ? (
          <div className="elicitation-fields">
            {fields.map((field) => (
              <FieldInput
                key={field.key}
                field={field}
                value={values[field.key]}
                error={errors[field.key] ?? null}
                onChange={(value) => {
                  setValues((v) => ({ ...v, [field.key]: value }));
                  setErrors(({ [field.key]: _fixed, ...rest }) => rest);
                }}
              />
            ))}
          </div>
        ) : (
          <>
            <p className="field-hint">Wheelhouse cannot show this kind of request ({params.mode}); you can decline or cancel it.</p>
            <pre className="elicitation-raw field-mono">{JSON.stringify(params, null, 2)}</pre>
          </>
        )}
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" data-testid="elicitation-cancel" onClick={() => request.answer({ action: 'cancel' })}>
            Cancel
          </button>
          <button type="button" className="button button-secondary" data-testid="elicitation-decline" onClick={() => request.answer({ action: 'decline' })}>
            Decline
          </button>
          {fields && (
            <button type="submit" className="button button-primary" data-testid="elicitation-accept">
              Accept
            </button>
          )}
          {params.mode === 'url' && <OpenLinkButton url={params.url} onOpen={() => request.answer({ action: 'accept' })} />}
        </div>
      </form>
    </div>
  );
}

/**
 * Where the link goes, said plainly: its host on its own line (in the form the browser will use,
 * so a look-alike name shows as `xn--…`), then the whole address for those who want to check it.
 */
function UrlRequest({ url }: { url: string }) {
  return (
    <div className="elicitation-url" data-testid="elicitation-url">
      <span className="field-label">This opens a page on</span>
      <span className="elicitation-url-host" data-testid="elicitation-url-host">
        {hostOf(url)}
      </span>
      <span className="elicitation-url-full field-mono">{url}</span>
      <span className="field-hint">It opens in your browser only when you choose Open. Decline if you did not expect it.</span>
    </div>
  );
}

/**
 * Opens the page through the app's external-link path (a new-window link the desktop vets and
 * hands to the browser; https only) and tells the server the person went there.
 */
function OpenLinkButton({ url, onOpen }: { url: string; onOpen: () => void }) {
  return (
    <a className="button button-primary" href={url} target="_blank" rel="noopener noreferrer" data-testid="elicitation-open" onClick={onOpen}>
      Open {hostOf(url)}
    </a>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function FieldInput(props: {
  field: ElicitationField;
  value: ElicitationValues[string] | undefined;
  error: string | null;
  onChange: (value: ElicitationValues[string]) => void;
}) {
  const { field, value, error, onChange } = props;
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined, 'data-field': field.key } as const;
  const label = (
    <>
      {field.label}
      {!field.required && <span className="field-optional"> (optional)</span>}
    </>
  );
  const hint = field.description && (
    <span id={hintId} className="field-hint">
      {field.description}
    </span>
  );
  const problem = error && (
    <span id={errorId} className="field-error">
      {error}
    </span>
  );

  if (field.kind === 'boolean') {
    return (
      <div className="field">
        <label className="field-label elicitation-check">
          <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          {label}
        </label>
        {hint}
        {problem}
      </div>
    );
  }
  if (field.kind === 'multi') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="field elicitation-multi" aria-describedby={describedBy} aria-invalid={error ? true : undefined}>
        <legend className="field-label">{label}</legend>
        {field.options.map((option) => (
          <label key={option.value} className="elicitation-check">
            <input
              type="checkbox"
              data-field={field.key}
              checked={chosen.includes(option.value)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, option.value] : chosen.filter((v) => v !== option.value))}
            />
            {option.label}
          </label>
        ))}
        {hint}
        {problem}
      </fieldset>
    );
  }
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {field.kind === 'select' ? (
        <select className="field-input" {...common} required={field.required} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)}>
          {!field.required || value === '' ? <option value="">—</option> : null}
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          className="field-input"
          {...common}
          required={field.required}
          type={inputType(field)}
          inputMode={field.kind === 'integer' ? 'numeric' : field.kind === 'number' ? 'decimal' : undefined}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {hint}
      {problem}
    </div>
  );
}

function inputType(field: ElicitationField): string {
  if (field.kind !== 'text') return 'text';
  if (field.format === 'email') return 'email';
  if (field.format === 'uri') return 'url';
  if (field.format === 'date') return 'date';
  if (field.format === 'date-time') return 'datetime-local';
  return 'text';
}
