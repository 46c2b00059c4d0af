import { RotateCcw, X } from 'lucide-react';
import { useEffect, useRef } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { useTerminalStore } from '../../services.js';
import './terminal.css';

/** The thread's own shell, in its folder: drag the corner to resize; Ctrl+Shift+C copies, paste pastes. */
export function TerminalPanel({ thread }: { readonly thread: Thread }) {
  const open = useTerminalStore((s) => s.open[thread.id] === true);
  const ended = useTerminalStore((s) => s.ended[thread.id] ?? null);
  const terminals = useTerminalStore((s) => s.terminals);
  const close = useTerminalStore((s) => s.close);
  const restart = useTerminalStore((s) => s.restart);
  const screen = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const container = screen.current;
    if (!open || !container) return;
    let detach: (() => void) | null = null;
    let unmounted = false;
    void terminals().then((loaded) => {
      if (!unmounted) detach = loaded.attach(thread.id, thread.cwd, container);
    });
    return () => {
      unmounted = true;
      detach?.();
    };
  }, [open, terminals, thread.id, thread.cwd]);

  if (!open) return null;
  return (
    <section className="terminal-panel" data-testid="terminal-panel" aria-label="Terminal">
      <header className="terminal-bar">
        <span className="terminal-title">Terminal</span>
        <span className="terminal-cwd" title={thread.cwd}>
          {thread.cwd}
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
          onClick={() => close(thread.id)}
        >
          <X size={14} strokeWidth={2} aria-hidden="true" />
        </button>
      </header>
      <div className="terminal-body" ref={screen} />
    </section>
  );
}
