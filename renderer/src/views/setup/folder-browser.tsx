import { ArrowUp, ChevronRight, Folder, FolderOpen, House, X } from 'lucide-react';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { WorkspaceDirectoryListResult } from '../../../../shared/protocol/methods/workspace.js';
import { useSetupStore } from '../../services/services.js';

/**
 * Picks a folder on the runtime's machine (works in the browser host too):
 * click a folder to open it, Up to go back, "Use this folder" to choose.
 */
export function FolderBrowser({
  start,
  onChoose,
  onClose,
}: {
  readonly start: string | null;
  readonly onChoose: (path: string) => void;
  readonly onClose: () => void;
}) {
  const listFolder = useSetupStore((s) => s.listFolder);
  const [listing, setListing] = useState<WorkspaceDirectoryListResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const list = useRef<HTMLUListElement>(null);
  const titleId = useId();

  const go = useCallback(
    async (path: string | null) => {
      setLoading(true);
      const result = await listFolder(path);
      setLoading(false);
      if (result.ok) {
        setListing(result.listing);
        setError(null);
        list.current?.scrollTo({ top: 0 });
      } else if (path !== null && listing === null) {
        // The typed path does not exist yet: start from home instead, and say why.
        setError(result.message);
        const home = await listFolder(null);
        if (home.ok) setListing(home.listing);
      } else {
        setError(result.message);
      }
    },
    [listFolder, listing],
  );

  // Opens once, at the starting folder; later moves go through `go`.
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current) return;
    opened.current = true;
    void go(start);
  }, [go, start]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    }
  };

  return (
    <div className="dialog-backdrop" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="dialog folder-browser" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="folder-browser" onKeyDown={onKeyDown}>
        <div className="dialog-head">
          <h2 id={titleId} className="dialog-title">
            Choose a project folder
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <X size={15} strokeWidth={2} aria-hidden="true" />
          </button>
        </div>
        <div className="folder-browser-bar">
          <button
            type="button"
            className="icon-button"
            aria-label="Up one folder"
            title="Up one folder"
            disabled={!listing?.parent || loading}
            onClick={() => listing?.parent && void go(listing.parent)}
          >
            <ArrowUp size={15} strokeWidth={2} aria-hidden="true" />
          </button>
          <button type="button" className="icon-button" aria-label="Home folder" title="Home folder" onClick={() => void go(null)}>
            <House size={15} strokeWidth={1.9} aria-hidden="true" />
          </button>
          <Breadcrumbs path={listing?.path ?? ''} onPick={(path) => void go(path)} />
        </div>
        {error && (
          <p className="field-error folder-browser-error" role="alert">
            {error}
          </p>
        )}
        <ul ref={list} className="folder-list" aria-label="Folders" aria-busy={loading}>
          {listing?.entries.map((entry) => (
            <li key={entry.path}>
              <button type="button" className="folder-entry" data-testid="folder-entry" onClick={() => void go(entry.path)}>
                <Folder size={15} strokeWidth={1.8} aria-hidden="true" />
                <span className="folder-entry-name">{entry.name}</span>
                <ChevronRight size={14} strokeWidth={2} className="folder-entry-chevron" aria-hidden="true" />
              </button>
            </li>
          ))}
          {listing && listing.entries.length === 0 && <li className="folder-list-empty">No folders inside this one.</li>}
          {listing?.truncated && <li className="folder-list-empty">Only the first {listing.entries.length} folders are shown.</li>}
        </ul>
        <div className="dialog-actions folder-browser-actions">
          <span className="folder-browser-current" title={listing?.path}>
            <FolderOpen size={14} strokeWidth={1.9} aria-hidden="true" />
            {listing?.path ?? '…'}
          </span>
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button button-primary"
            data-testid="folder-choose"
            disabled={!listing}
            onClick={() => listing && onChoose(listing.path)}
          >
            Use this folder
          </button>
        </div>
      </div>
    </div>
  );
}

/** The path as clickable segments (the last one is where the browser is). */
function Breadcrumbs({ path, onPick }: { readonly path: string; readonly onPick: (path: string) => void }) {
  const separator = path.includes('\\') ? '\\' : '/';
  const parts = path.split(/[\\/]/).filter(Boolean);
  const root = path.startsWith(separator) ? separator : '';
  return (
    <nav className="breadcrumbs" aria-label="Current folder">
      {parts.map((part, index) => {
        const target = root + parts.slice(0, index + 1).join(separator);
        const last = index === parts.length - 1;
        return (
          <span key={target} className="breadcrumb">
            {index > 0 && <ChevronRight size={12} strokeWidth={2} className="breadcrumb-sep" aria-hidden="true" />}
            <button type="button" className="breadcrumb-button" aria-current={last ? 'location' : undefined} onClick={() => onPick(target)}>
              {part}
            </button>
          </span>
        );
      })}
    </nav>
  );
}
