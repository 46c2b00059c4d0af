import { FolderOpen } from 'lucide-react';
import { useId, useState } from 'react';
import { FolderBrowser } from './folder-browser.js';

/** The project folder: typed, or picked in the folder browser. */
export function FolderField({
  value,
  error,
  onChange,
  onCommit,
}: {
  readonly value: string;
  readonly error: string | null;
  readonly onChange: (path: string) => void;
  /** Called when the person is done with the field (blur, Enter, a pick), to check the folder. */
  readonly onCommit: (path: string) => void;
}) {
  const [browsing, setBrowsing] = useState(false);
  const id = useId();
  const errorId = useId();
  return (
    <div className="folder-field">
      <div className="folder-field-row">
        <input
          id={id}
          className="field-input field-mono"
          data-testid="folder-input"
          aria-label="Project folder"
          aria-invalid={error !== null}
          aria-describedby={error ? errorId : undefined}
          spellCheck={false}
          placeholder="/path/to/your/project"
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onBlur={() => onCommit(value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              onCommit(value);
            }
          }}
        />
        <button type="button" className="button button-secondary" data-testid="folder-browse" onClick={() => setBrowsing(true)}>
          <FolderOpen size={14} strokeWidth={1.9} aria-hidden="true" />
          Browse…
        </button>
      </div>
      {error && (
        <p id={errorId} className="field-error" role="alert" data-testid="folder-error">
          {error}
        </p>
      )}
      {browsing && (
        <FolderBrowser
          start={value.trim() || null}
          onClose={() => setBrowsing(false)}
          onChoose={(path) => {
            setBrowsing(false);
            onChange(path);
            onCommit(path);
          }}
        />
      )}
    </div>
  );
}
