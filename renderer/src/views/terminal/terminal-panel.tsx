import { RotateCcw, X } from 'lucide-react';
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useMachinesStore, useTerminalStore } from '../../services/services.js';
import { machineName } from '../../stores/machines-store.js';
import { TERMINAL_HEIGHT } from '../../stores/terminal-store.js';
import './terminal.css';

/** Room the conversation keeps above a terminal dragged as tall as it goes (px). */
const CONVERSATION_RESERVE = 180;
/** Keyboard steps of the resize bar (px): arrows, then Page Up / Page Down. */
const STEP = 20;
const PAGE = 100;

/** The thread's own shell, in its folder: drag the bar on its top edge (or use the arrow keys there) to resize; Ctrl+Shift+C copies, paste pastes. */
export function TerminalPanel({ thread }: { readonly thread: Thread }) {
  const open = useTerminalStore((s) => s.open[thread.id] === true);
  const ended = useTerminalStore((s) => s.ended[thread.id] ?? null);
  const startedAt = useTerminalStore((s) => s.startedAt[thread.id] ?? null);
  const height = useTerminalStore((s) => s.height);
  const terminals = useTerminalStore((s) => s.terminals);
  const close = useTerminalStore((s) => s.close);
  const restart = useTerminalStore((s) => s.restart);
  const machines = useMachinesStore((s) => s.list);
  const panel = useRef<HTMLElement>(null);
  const screen = useRef<HTMLDivElement>(null);
  // A thread on an SSH machine has its terminal there (the runtime opens it from the thread's id), in its folder there.
  const where = thread.environments[0];
  const environmentId = where?.environmentId ?? 'local';
  const cwd = environmentId !== 'local' && where ? where.cwd : thread.cwd;
  // A shell stays where it started: when the thread has moved since, the panel says so instead of implying it moved too.
  const shell = startedAt ?? { environmentId, cwd };
  const moved = startedAt !== null && ended === null && startedAt.environmentId !== environmentId;

  useEffect(() => {
    const container = screen.current;
    if (!open || !container) return;
    let detach: (() => void) | null = null;
    let unmounted = false;
    void terminals().then((loaded) => {
      if (!unmounted) detach = loaded.attach(thread.id, { environmentId, cwd }, container);
    });
    return () => {
      unmounted = true;
      detach?.();
    };
  }, [open, terminals, thread.id, environmentId, cwd]);

  if (!open) return null;
  return (
    <section ref={panel} className="terminal-panel" data-testid="terminal-panel" aria-label="Terminal" style={{ height }}>
      <ResizeBar panel={panel} />
      <header className="terminal-bar">
        <span className="terminal-title">Terminal</span>
        {(shell.environmentId !== 'local' || moved) && (
          <span className="terminal-machine" data-testid="terminal-machine" data-environment-id={shell.environmentId}>
            on {machineName(machines, shell.environmentId)}
          </span>
        )}
        <span className="terminal-cwd" title={shell.cwd}>
          {shell.cwd}
        </span>
        {ended && (
          <span className="terminal-ended" role="status" data-testid="terminal-ended">
            {ended.kind === 'exited' ? `Shell exited (${ended.exitCode})` : `Shell stopped: ${ended.message}`}
          </span>
        )}
        {ended && (
          <button type="button" className="icon-button" aria-label="Start a new shell" title="Start a new shell" onClick={() => restart(thread.id)}>
            <RotateCcw size={14} strokeWidth={2} aria-hidden="true" />
          </button>
        )}
        <button
          type="button"
          className="icon-button"
          aria-label="Close the terminal (ends its shell)"
          title="Close the terminal (ends its shell)"
          data-testid="terminal-close"
          onClick={() => void close(thread.id)}
        >
          <X size={14} strokeWidth={2} aria-hidden="true" />
        </button>
      </header>
      {moved && (
        <p className="terminal-moved" role="status" data-testid="terminal-moved">
          This shell is still on {machineName(machines, shell.environmentId)}; the thread now works on {machineName(machines, environmentId)}. Close the terminal and open
          it again for a shell there.
        </p>
      )}
      <div className="terminal-body" ref={screen} />
    </section>
  );
}

/**
 * The bar on the panel's top edge: drag it up to make the terminal taller,
 * down to make it shorter; with the keyboard, the arrow keys (and Page Up /
 * Page Down, Home, End) do the same. The height is remembered.
 */
function ResizeBar({ panel }: { readonly panel: RefObject<HTMLElement | null> }) {
  const height = useTerminalStore((s) => s.height);
  const setHeight = useTerminalStore((s) => s.setHeight);
  const [dragging, setDragging] = useState<{ readonly startY: number; readonly startHeight: number } | null>(null);
  /** The tallest the panel may be now: its pane's height less the room the conversation keeps. */
  const maxHeight = () => {
    const pane = panel.current?.parentElement?.clientHeight ?? 0;
    return Math.max(TERMINAL_HEIGHT.min, Math.min(TERMINAL_HEIGHT.max, pane - CONVERSATION_RESERVE));
  };
  const apply = (next: number) => setHeight(Math.min(maxHeight(), next));

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    setDragging({ startY: event.clientY, startHeight: height });
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (dragging) apply(dragging.startHeight + (dragging.startY - event.clientY));
  };
  const onPointerEnd = (event: PointerEvent<HTMLDivElement>) => {
    if (event.currentTarget.hasPointerCapture(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
    setDragging(null);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, () => number> = {
      ArrowUp: () => height + STEP,
      ArrowDown: () => height - STEP,
      PageUp: () => height + PAGE,
      PageDown: () => height - PAGE,
      Home: () => TERMINAL_HEIGHT.min,
      End: () => maxHeight(),
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    apply(move());
  };

  return (
    <div
      className="terminal-resize"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Terminal height"
      aria-valuemin={TERMINAL_HEIGHT.min}
      aria-valuemax={maxHeight()}
      aria-valuenow={height}
      aria-valuetext={`${height} pixels`}
      tabIndex={0}
      title="Drag to resize the terminal (or use the arrow keys)"
      data-testid="terminal-resize"
      data-dragging={dragging !== null}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerEnd}
      onPointerCancel={onPointerEnd}
      onKeyDown={onKeyDown}
    />
  );
}
