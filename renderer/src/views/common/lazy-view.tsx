import { Component, lazy, Suspense, useEffect, useReducer, useRef, type ComponentType, type ReactNode } from 'react';
import { useConnectionStore } from '../../services/services.js';

/** How many times a failed chunk is fetched again on its own once the runtime is reachable. */
const AUTOMATIC_RETRIES = 2;

interface LazyViewOptions {
  /** What the person would call this part of the window ("Settings"), for the failure message. */
  readonly label: string;
  /** The view is a dialog over the window: its failure message is one too. */
  readonly overlay?: boolean;
}

/**
 * A view shipped as a chunk of its own and fetched on first use (`exportName` of the module `load`
 * imports). In the browser host the chunk comes from `wheelhouse serve`, which may be restarting
 * just then; React.lazy keeps such a failure forever and, with nothing to catch it, blanks the
 * whole window. Here the failure shows in place of the view, and the chunk is fetched again when
 * the runtime is reachable or on request.
 */
export function lazyView<M extends object, K extends keyof M & string>(load: () => Promise<M>, exportName: K, options: LazyViewOptions): M[K] {
  /** The chunk that could not be fetched, as the browser named it (see `underNewUrl`). */
  let failedChunk: string | null = null;
  let attempts = 0;
  const importModule = async (): Promise<M> => {
    if (failedChunk !== null) return (await import(/* @vite-ignore */ underNewUrl(failedChunk, attempts))) as M;
    try {
      return await load();
    } catch (error) {
      failedChunk = chunkNamedIn(error);
      // A retry whose stylesheet failed the first time reaches the chunk only now, and finds it failed.
      if (failedChunk === null || attempts === 1) throw error;
      return (await import(/* @vite-ignore */ underNewUrl(failedChunk, attempts))) as M;
    }
  };
  const attempt = () =>
    lazy(async () => {
      attempts += 1;
      try {
        if (attempts > 1) await reloadFailedStylesheets(attempts);
        const module = await importModule();
        return { default: module[exportName] as ComponentType<object> };
      } catch (error) {
        throw new ViewLoadError(options.label, error);
      }
    });
  let Current = attempt();
  let automaticRetriesLeft = AUTOMATIC_RETRIES;

  function Loaded(props: object) {
    // Once it rendered, later failures are fresh ones and may be retried on their own again.
    useEffect(() => {
      automaticRetriesLeft = AUTOMATIC_RETRIES;
    }, []);
    return <Current {...props} />;
  }

  function LazyView(props: object) {
    const [, rerender] = useReducer((n: number) => n + 1, 0);
    const retry = (automatic: boolean) => {
      if (automatic) automaticRetriesLeft -= 1;
      Current = attempt();
      rerender();
    };
    return (
      <LoadFailureBoundary
        fallback={(error, reset) => (
          <ViewLoadFailed
            options={options}
            error={error}
            canRetryAutomatically={automaticRetriesLeft > 0}
            retry={(automatic) => {
              retry(automatic);
              reset();
            }}
          />
        )}
      >
        <Suspense fallback={null}>
          <Loaded {...props} />
        </Suspense>
      </LoadFailureBoundary>
    );
  }
  LazyView.displayName = `LazyView(${options.label})`;
  return LazyView as M[K];
}

/**
 * Chromium (150 at least) keeps a failed dynamic import for good: importing the same URL again
 * fails at once, without a request. So a chunk that could not be fetched is imported again under
 * a URL of its own (`?attempt=N`); its imports of shared chunks resolve to the URLs the window
 * already loaded, so it shares their modules (the stores). When the browser did not name the
 * chunk (Safari), `load` is tried again as it is.
 */
function underNewUrl(address: string, attempt: number): string {
  const url = new URL(address);
  url.searchParams.set('attempt', String(attempt));
  return url.href;
}

/** The chunk's URL in a failed import's message (Chromium and Firefox name it; Safari does not). */
function chunkNamedIn(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  const named = /(https?:\/\/[^\s'"]+\.js)\b/.exec(message);
  return named ? named[1]! : null;
}

/** A view's chunk could not be fetched; the window shows it in place of the view. */
export class ViewLoadError extends Error {
  constructor(label: string, cause: unknown) {
    super(`${label} could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ViewLoadError';
  }
}

/**
 * Vite's chunk loader fetches a chunk's stylesheet once, even when that failed; a fresh <link>
 * fetches it again, under a URL of its own as the chunk. Waits for them; one that fails again
 * fails the attempt, as it fails Vite's.
 */
function reloadFailedStylesheets(attempt: number): Promise<void> {
  const failed = Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')).filter((link) => !hasRules(link));
  const reloaded = failed.map(
    (link) =>
      new Promise<void>((resolve, reject) => {
        const fresh = link.cloneNode() as HTMLLinkElement;
        fresh.href = underNewUrl(link.href, attempt);
        fresh.addEventListener('load', () => resolve());
        fresh.addEventListener('error', () => reject(new Error(`Unable to load the stylesheet ${link.href}`)));
        link.replaceWith(fresh);
      }),
  );
  return Promise.all(reloaded).then(() => undefined);
}

/**
 * Whether a stylesheet link holds the sheet it was fetched for. Chromium 150 leaves a failed one
 * an empty stand-in whose rules cannot be read (a SecurityError), not `sheet === null`.
 */
function hasRules(link: HTMLLinkElement): boolean {
  try {
    return link.sheet !== null && link.sheet.cssRules.length >= 0;
  } catch {
    return false;
  }
}

interface BoundaryProps {
  readonly fallback: (error: unknown, reset: () => void) => ReactNode;
  readonly children: ReactNode;
}

class LoadFailureBoundary extends Component<BoundaryProps, { failure: { error: unknown } | null }> {
  override state: { failure: { error: unknown } | null } = { failure: null };

  static getDerivedStateFromError(error: unknown) {
    return { failure: { error } };
  }

  override render(): ReactNode {
    const { failure } = this.state;
    if (failure) return this.props.fallback(failure.error, () => this.setState({ failure: null }));
    return this.props.children;
  }
}

function ViewLoadFailed(props: {
  options: LazyViewOptions;
  error: unknown;
  canRetryAutomatically: boolean;
  retry: (automatic: boolean) => void;
}) {
  const { options, error, canRetryAutomatically, retry } = props;
  const connected = useConnectionStore((s) => s.status === 'connected');
  const latest = useRef({ canRetryAutomatically, retry });
  latest.current = { canRetryAutomatically, retry };
  // The usual cause is a runtime that was unreachable for a moment: try again once it answers.
  useEffect(() => {
    if (connected && latest.current.canRetryAutomatically) latest.current.retry(true);
  }, [connected]);

  const panel = (
    <div className="view-load-failed" role="alert" data-testid="view-load-failed">
      <h2 className="dialog-title">{options.label} could not be loaded</h2>
      <p className="dialog-text">
        {connected
          ? 'Wheelhouse could not fetch this part of the window.'
          : 'Wheelhouse is not reachable right now; this part of the window loads when it is back.'}
      </p>
      <p className="view-load-failed-detail">{detailOf(error)}</p>
      <div className="dialog-actions">
        <button type="button" className="button button-primary" onClick={() => retry(false)}>
          Try again
        </button>
      </div>
    </div>
  );
  if (!options.overlay) return panel;
  return (
    <div className="dialog-backdrop">
      <div className="dialog dialog-small" role="dialog" aria-modal="true" aria-label={`${options.label} could not be loaded`}>
        {panel}
      </div>
    </div>
  );
}

function detailOf(error: unknown): string {
  const cause = error instanceof ViewLoadError ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
