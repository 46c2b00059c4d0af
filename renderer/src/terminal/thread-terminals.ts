import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import { TerminalSession, type TerminalEnd } from './terminal-session.js';

/** Where a thread's shell runs: its machine (`local` for this computer) and the folder there. */
export interface ShellPlace {
  readonly environmentId: string;
  readonly cwd: string;
}

interface ThreadTerminal {
  readonly term: Terminal;
  readonly fit: FitAddon;
  /** xterm's host element; moved between panel mounts so the shell outlives a thread switch. */
  readonly element: HTMLDivElement;
  /** Where the thread works now: a new shell (the first, or after one ended) starts there. */
  wanted: ShellPlace;
  session: TerminalSession | null;
}

/** Lines kept above the screen. */
const SCROLLBACK_LINES = 10_000;

function cssValue(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** xterm's colours from the window's theme (dark or light, as the system says now). */
function themeFromCss() {
  return {
    background: cssValue('--bg-elevated', '#1b1c20'),
    foreground: cssValue('--text', '#e7e8ea'),
    cursor: cssValue('--accent', '#7b86ff'),
    selectionBackground: cssValue('--accent-soft', 'rgba(123, 134, 255, 0.3)'),
  };
}

/**
 * Each thread's terminal: an xterm.js screen and the shell behind it, kept
 * while the person looks at other threads and ended when they close it (or
 * the connection drops, which ends the shell on the runtime's side).
 */
export class ThreadTerminals {
  private readonly byThread = new Map<string, ThreadTerminal>();

  constructor(
    private readonly client: WheelhouseClient,
    private readonly onEnd: (threadId: string, end: TerminalEnd | null) => void,
    /** A shell started for the thread, there: a shell keeps its machine when the thread moves on. */
    private readonly onStart: (threadId: string, place: ShellPlace) => void,
  ) {
    // The window follows the system's light or dark setting; so do the terminals already open.
    window.matchMedia('(prefers-color-scheme: light)').addEventListener('change', () => {
      const theme = themeFromCss();
      for (const terminal of this.byThread.values()) terminal.term.options.theme = theme;
    });
  }

  /**
   * Shows the thread's terminal in `container` (starting its shell, at `place`, the first time); returns
   * the detach. A shell already running stays where it started, even when the thread has moved since.
   */
  attach(threadId: string, place: ShellPlace, container: HTMLElement): () => void {
    let entry = this.byThread.get(threadId);
    if (!entry) {
      entry = this.create(place);
      this.byThread.set(threadId, entry);
    }
    entry.wanted = place;
    const terminal = entry;
    container.appendChild(terminal.element);
    if (!terminal.term.element) terminal.term.open(terminal.element);
    const fitNow = () => {
      if (container.clientWidth > 0 && container.clientHeight > 0) terminal.fit.fit();
    };
    fitNow();
    if (!terminal.session) this.start(threadId, terminal);
    const observer = new ResizeObserver(fitNow);
    observer.observe(container);
    terminal.term.focus();
    return () => {
      observer.disconnect();
      terminal.element.remove();
    };
  }

  /** A fresh shell after the last one ended, where the thread works now. */
  restart(threadId: string): void {
    const terminal = this.byThread.get(threadId);
    if (!terminal || terminal.session?.isRunning) return;
    terminal.term.reset();
    this.start(threadId, terminal);
  }

  /** What runs in front in the thread's shell (null at its prompt, or without a shell). */
  foregroundProgram(threadId: string): Promise<string | null> {
    return this.byThread.get(threadId)?.session?.foregroundProgram() ?? Promise.resolve(null);
  }

  /** Ends the shell (whole process tree) and forgets the screen. */
  close(threadId: string): void {
    const terminal = this.byThread.get(threadId);
    if (!terminal) return;
    this.byThread.delete(threadId);
    terminal.session?.dispose();
    terminal.term.dispose();
    terminal.element.remove();
  }

  private create(place: ShellPlace): ThreadTerminal {
    const element = document.createElement('div');
    element.className = 'terminal-screen';
    element.dataset['testid'] = 'terminal-screen';
    const term = new Terminal({
      scrollback: SCROLLBACK_LINES,
      cursorBlink: true,
      fontFamily: cssValue('--font-mono', 'monospace'),
      fontSize: 13,
      theme: themeFromCss(),
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    // Copy: Ctrl+Shift+C (Cmd+C on macOS) copies the selection instead of sending ^C; paste is the browser's own paste event.
    term.attachCustomKeyEventHandler((event) => {
      const copyKeys = (event.ctrlKey && event.shiftKey && event.code === 'KeyC') || (event.metaKey && event.code === 'KeyC');
      if (event.type === 'keydown' && copyKeys && term.hasSelection()) {
        void navigator.clipboard.writeText(term.getSelection()).catch(() => undefined);
        event.preventDefault();
        return false;
      }
      return true;
    });
    return { term, fit, element, wanted: place, session: null };
  }

  private start(threadId: string, terminal: ThreadTerminal): void {
    const { term } = terminal;
    const place = terminal.wanted;
    this.onEnd(threadId, null);
    this.onStart(threadId, place);
    // Listeners belong to this shell only; a restart wires new ones.
    const wiring: { dispose(): void }[] = [];
    const session = new TerminalSession(this.client, {
      threadId,
      cwd: place.cwd,
      cols: term.cols,
      rows: term.rows,
      // Acknowledged once xterm has parsed it: a flood waits for the screen, never the other way round.
      onOutput: (bytes) => term.write(bytes, () => session.ack(bytes.length)),
      onEnd: (end) => {
        for (const listener of wiring) listener.dispose();
        if (this.byThread.get(threadId) === terminal) this.onEnd(threadId, end);
      },
    });
    terminal.session = session;
    wiring.push(
      term.onData((data) => session.write(data)),
      term.onResize(({ cols, rows }) => session.resize(cols, rows)),
    );
  }
}
