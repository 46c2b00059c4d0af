import { create } from 'zustand';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import type { TerminalEnd } from '../terminal/terminal-session.js';
import type { ThreadTerminals } from '../terminal/thread-terminals.js';

export interface TerminalState {
  /** Threads whose terminal panel is showing. */
  readonly open: Readonly<Record<string, boolean>>;
  /** How a thread's shell ended, while it is not running. */
  readonly ended: Readonly<Record<string, TerminalEnd>>;
  /** xterm.js loads with the first terminal opened, not at start-up. */
  terminals(): Promise<ThreadTerminals>;
  toggle(threadId: string): void;
  /** Hides the panel and ends the shell with everything it started. */
  close(threadId: string): void;
  restart(threadId: string): void;
}

/** Which threads show their terminal panel, and how their shells are doing. */
export function createTerminalStore(client: WheelhouseClient) {
  let loaded: Promise<ThreadTerminals> | null = null;
  return create<TerminalState>()((set, get) => ({
    open: {},
    ended: {},
    terminals: () =>
      (loaded ??= import('../terminal/thread-terminals.js').then(
        ({ ThreadTerminals }) =>
          new ThreadTerminals(client, (threadId, end) =>
            set((s) => {
              const ended = { ...s.ended };
              if (end) ended[threadId] = end;
              else delete ended[threadId];
              return { ended };
            }),
          ),
      )),
    toggle: (threadId) => set((s) => ({ open: { ...s.open, [threadId]: !s.open[threadId] } })),
    close: (threadId) => {
      void get()
        .terminals()
        .then((terminals) => terminals.close(threadId));
      set((s) => {
        const ended = { ...s.ended };
        delete ended[threadId];
        return { open: { ...s.open, [threadId]: false }, ended };
      });
    },
    restart: (threadId) => {
      void get()
        .terminals()
        .then((terminals) => terminals.restart(threadId));
    },
  }));
}
