import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { Archive, Folder, MessagesSquare } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FocusEvent, type KeyboardEvent, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useProjectsStore, useThreadsStore } from '../../services/services.js';
import { selectActiveThreads, selectArchivedThreads } from '../../stores/thread-selectors.js';
import { nextThreadIndex, threadListItems, type ThreadListBlock, type ThreadListItem } from './thread-list-items.js';
import { ThreadRow, type ThreadRowSlot } from './thread-row.js';

/** A first guess of each line's height; every line is measured once it renders. */
const ESTIMATED_HEIGHT: Record<ThreadListItem['kind'], number> = { 'project-title': 26, thread: 52, 'archived-title': 55, 'archived-empty': 33 };

/**
 * The scrolling list of threads, with the archived section when asked for.
 * Virtualised: however many threads there are, only the lines near the
 * viewport (and the row that has focus) are in the DOM.
 */
export function ThreadList() {
  const active = useThreadsStore(useShallow(selectActiveThreads));
  const archived = useThreadsStore(useShallow(selectArchivedThreads));
  const load = useThreadsStore((s) => s.load);
  const showArchived = useThreadsStore((s) => s.showArchived);
  const setShowArchived = useThreadsStore((s) => s.setShowArchived);
  const refresh = useThreadsStore((s) => s.refresh);
  const selectedId = useThreadsStore((s) => s.selectedId);
  const projectOfThread = useProjectsStore((s) => s.projectOfThread);
  const items = useMemo(() => threadListItems(active, archived, projectOfThread, showArchived), [active, archived, projectOfThread, showArchived]);
  const indexOf = useMemo(() => new Map(items.map((item, index) => [item.key, index])), [items]);

  const scroller = useRef<HTMLElement>(null);
  const canvas = useRef<HTMLDivElement>(null);
  const [canvasTop, setCanvasTop] = useState(0);
  // The row with focus stays rendered while scrolled away, so the keyboard never loses its place.
  const focusedKey = useRef<string | null>(null);
  const indexOfRef = useRef(indexOf);
  indexOfRef.current = indexOf;
  const rangeExtractor = useCallback((range: Range) => {
    const indexes = defaultRangeExtractor(range);
    const focused = focusedKey.current === null ? undefined : indexOfRef.current.get(focusedKey.current);
    if (focused === undefined || indexes.includes(focused)) return indexes;
    return [...indexes, focused].sort((a, b) => a - b);
  }, []);

  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => ESTIMATED_HEIGHT[items[index]!.kind],
    getItemKey: (index) => items[index]!.key,
    overscan: 8,
    gap: 1,
    scrollMargin: canvasTop,
    rangeExtractor,
    // Lines are in the first render, before the scroller has been measured.
    initialRect: { width: 0, height: window.innerHeight },
  });

  // The header (and an empty or loading state) sit above the lines inside the same scroller.
  useLayoutEffect(() => {
    const top = canvas.current?.offsetTop ?? 0;
    if (top !== canvasTop) setCanvasTop(top);
  });

  // A thread selected from elsewhere (Approvals, a notification, a new thread) comes into view.
  const selectedIndex = selectedId === null ? -1 : (indexOf.get(selectedId) ?? -1);
  const selectedListed = selectedIndex >= 0;
  useEffect(() => {
    if (selectedListed) virtualizer.scrollToIndex(indexOfRef.current.get(selectedId!)!, { align: 'auto' });
  }, [selectedId, selectedListed, virtualizer]);

  // Arrow keys walk the rows by index; a row not rendered yet is scrolled to, then focused once it is.
  const pendingFocus = useRef<string | null>(null);
  const focusRow = (key: string): boolean => {
    const button = scroller.current?.querySelector<HTMLButtonElement>(`[data-thread-id="${CSS.escape(key)}"] .thread-row-main`);
    if (!button) return false;
    // The list scrolls it fully into view itself (the browser's own focus scroll may leave it half hidden).
    button.focus({ preventScroll: true });
    return true;
  };
  useLayoutEffect(() => {
    if (pendingFocus.current !== null && focusRow(pendingFocus.current)) pendingFocus.current = null;
  });
  const moveFocus = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const target = event.target as HTMLElement;
    if (!target.classList.contains('thread-row-main')) return;
    const from = Number(target.closest('[data-index]')?.getAttribute('data-index'));
    if (!Number.isInteger(from)) return;
    const next = nextThreadIndex(items, from, event.key === 'ArrowDown' ? 1 : -1);
    if (next < 0) return;
    event.preventDefault();
    const key = items[next]!.key;
    if (!focusRow(key)) pendingFocus.current = key;
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const trackFocus = (event: FocusEvent<HTMLElement>) => {
    focusedKey.current = event.target.closest('[data-thread-id]')?.getAttribute('data-thread-id') ?? null;
  };
  const forgetFocus = (event: FocusEvent<HTMLElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget)) focusedKey.current = null;
  };

  const virtualItems = virtualizer.getVirtualItems();
  const slotOf = (index: number, start: number) => ({ index, top: start - canvasTop, measure: virtualizer.measureElement });

  return (
    <nav
      ref={scroller}
      className="thread-list"
      data-testid="thread-list"
      aria-label="Thread list"
      onKeyDown={moveFocus}
      onFocus={trackFocus}
      onBlur={forgetFocus}
    >
      <div className="thread-section-header">
        <h2 className="thread-section-title">Threads</h2>
        <button
          type="button"
          className="thread-archive-toggle"
          data-testid="show-archived"
          aria-pressed={showArchived}
          title={showArchived ? 'Hide archived threads' : 'Show archived threads'}
          onClick={() => void setShowArchived(!showArchived)}
        >
          <Archive size={13} strokeWidth={2} aria-hidden="true" />
          <span>Show archived</span>
        </button>
      </div>

      {active.length > 0 ? null : load === 'loading' ? (
        <ul className="thread-rows" aria-busy="true" aria-label="Loading threads">
          {[0, 1, 2].map((n) => (
            <li key={n} className="thread-skeleton" />
          ))}
        </ul>
      ) : load === 'failed' ? (
        <div className="thread-empty">
          <p className="thread-empty-title">Couldn’t load threads</p>
          <button type="button" className="button button-secondary" onClick={() => void refresh()}>
            Try again
          </button>
        </div>
      ) : (
        <div className="thread-empty">
          <MessagesSquare size={22} strokeWidth={1.6} aria-hidden="true" className="thread-empty-icon" />
          <p className="thread-empty-title">No threads yet</p>
          <p className="thread-empty-text">Start a thread to work with an agent on a project.</p>
        </div>
      )}

      <div ref={canvas} className="thread-canvas" style={{ height: virtualizer.getTotalSize() }}>
        {byBlock(virtualItems.map((virtual) => ({ item: items[virtual.index]!, slot: slotOf(virtual.index, virtual.start) })))}
      </div>
    </nav>
  );
}

type Placed = { readonly item: ThreadListItem; readonly slot: ThreadRowSlot };

/**
 * The rendered lines inside their project's section (or the archived one), so
 * each heading and its rows stay one labelled group with a real list.
 */
function byBlock(placed: readonly Placed[]): ReactNode[] {
  const blocks = new Map<ThreadListBlock, Placed[]>();
  for (const line of placed) {
    const lines = blocks.get(line.item.block);
    if (lines) lines.push(line);
    else blocks.set(line.item.block, [line]);
  }
  return [...blocks.entries()].map(([block, lines]) => {
    const rows = lines.filter((line) => line.item.kind === 'thread');
    const list = rows.length > 0 && (
      <ul className="thread-rows">
        {rows.map(({ item, slot }) => item.kind === 'thread' && <ThreadRow key={item.key} thread={item.thread} slot={slot} />)}
      </ul>
    );
    const headings = lines.filter((line) => line.item.kind !== 'thread').map(({ item, slot }) => <Heading key={item.key} item={item} slot={slot} />);
    return block.kind === 'project' ? (
      <section key={`project:${block.folder}`} className="thread-project" aria-label={`Project ${block.name}`} data-testid="thread-project" data-path={block.folder}>
        {headings}
        {list}
      </section>
    ) : (
      <section key="archived" className="thread-archived" aria-label="Archived threads">
        {headings}
        {list}
      </section>
    );
  });
}

/** A project's heading, the archived section's heading, or its "Nothing archived." */
function Heading({ item, slot }: Placed) {
  const place = { ref: slot.measure, 'data-index': slot.index, style: { top: slot.top } };
  if (item.kind === 'project-title') {
    return (
      <h3 {...place} className="thread-project-title" data-first={item.first || undefined} title={item.block.folder}>
        <Folder size={12} strokeWidth={2} aria-hidden="true" />
        <span>{item.block.name}</span>
      </h3>
    );
  }
  if (item.kind === 'archived-title') {
    return (
      <div {...place} className="thread-archived-head">
        <div className="thread-section-header">
          <h2 className="thread-section-title">Archived</h2>
          <span className="thread-section-count">{item.count}</span>
        </div>
      </div>
    );
  }
  return (
    <p {...place} className="thread-archived-empty">
      Nothing archived.
    </p>
  );
}
