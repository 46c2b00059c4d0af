import { create } from 'zustand';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import type { TerminalEnd } from '../terminal/terminal-session.js';
import { ThreadTerminals } from '../terminal/thread-terminals.js';

export interface TerminalState {
  /** Threads whose terminal panel is showing. */
  readonly open: Readonly<Record<string, boolean>>;
  /** How a thread's shell ended, while it is not running. */
  readonly ended: Readonly<Record<string, TerminalEnd>>;
  readonly terminals: ThreadTerminals;
  toggle(threadId: string): void;
  /** Hides the panel and ends the shell with everything it started. */
  close(threadId: string): void;
  restart(threadId: string): void;
}

/** Which threads show their terminal panel, and how their shells are doing. */
export function createTerminalStore(client: WheelhouseClient) {
  return create<TerminalState>()((set, get) => ({
    open: {},
    ended: {},
    terminals: new ThreadTerminals(client, (threadId, end) =>
      set((s) => {
        const ended = { ...s.ended };
        if (end) ended[threadId] = end;
        else delete ended[threadId];
        return { ended };
      }),
    ),
    toggle: (threadId) => set((s) => ({ open: { ...s.open, [threadId]: !s.open[threadId] } })),
    close: (threadId) => {
      get().terminals.close(threadId);
      set((s) => {
        const ended = { ...s.ended };
        delete ended[threadId];
        return { open: { ...s.open, [threadId]: false }, ended };
      });
    },
    restart: (threadId) => get().terminals.restart(threadId),
  }));
}
