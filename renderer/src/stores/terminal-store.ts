import { create } from 'zustand';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';
import type { TerminalEnd } from '../terminal/terminal-session.js';
import type { ShellPlace, ThreadTerminals } from '../terminal/thread-terminals.js';
import { useConfirmStore } from './confirm-store.js';

/** Heights the terminal panel may take (px); the upper bound also leaves the conversation room (see the panel). */
export const TERMINAL_HEIGHT = { min: 120, initial: 280, max: 1200 } as const;
const HEIGHT_KEY = 'wheelhouse.terminal.height';

export interface TerminalState {
  /** Threads whose terminal panel is showing. */
  readonly open: Readonly<Record<string, boolean>>;
  /** How a thread's shell ended, while it is not running. */
  readonly ended: Readonly<Record<string, TerminalEnd>>;
  /** Where each thread's shell was started: it stays there when the thread moves to another machine. */
  readonly startedAt: Readonly<Record<string, ShellPlace>>;
  /** The panel's height (px), the same for every thread, remembered across reloads. */
  readonly height: number;
  /** xterm.js loads with the first terminal opened, not at start-up. */
  terminals(): Promise<ThreadTerminals>;
  toggle(threadId: string): void;
  setHeight(height: number): void;
  /**
   * Hides the panel and ends the shell with everything it started; when a
   * program the person started still runs there, asks first. Resolves true
   * when it closed.
   */
  close(threadId: string): Promise<boolean>;
  restart(threadId: string): void;
}

export function clampTerminalHeight(height: number): number {
  return Math.round(Math.min(TERMINAL_HEIGHT.max, Math.max(TERMINAL_HEIGHT.min, height)));
}

function storedHeight(storage: Storage): number {
  const stored = Number(storage.getItem(HEIGHT_KEY));
  return Number.isFinite(stored) && stored > 0 ? clampTerminalHeight(stored) : TERMINAL_HEIGHT.initial;
}

/** Which threads show their terminal panel, how tall it is, and how their shells are doing. */
export function createTerminalStore(client: WheelhouseClient, storage: Storage) {
  let loaded: Promise<ThreadTerminals> | null = null;
  return create<TerminalState>()((set, get) => ({
    open: {},
    ended: {},
    startedAt: {},
    height: storedHeight(storage),
    terminals: () =>
      (loaded ??= import('../terminal/thread-terminals.js').then(
        ({ ThreadTerminals }) =>
          new ThreadTerminals(
            client,
            (threadId, end) =>
              set((s) => {
                const ended = { ...s.ended };
                if (end) ended[threadId] = end;
                else delete ended[threadId];
                return { ended };
              }),
            (threadId, place) => set((s) => ({ startedAt: { ...s.startedAt, [threadId]: place } })),
          ),
      )),
    toggle: (threadId) => set((s) => ({ open: { ...s.open, [threadId]: !s.open[threadId] } })),
    setHeight: (height) => {
      const clamped = clampTerminalHeight(height);
      if (clamped === get().height) return;
      set({ height: clamped });
      storage.setItem(HEIGHT_KEY, String(clamped));
    },
    close: async (threadId) => {
      const terminals = await get().terminals();
      const program = await terminals.foregroundProgram(threadId);
      if (program !== null) {
        const yes = await useConfirmStore.getState().ask({
          title: 'Close the terminal?',
          message: `“${program}” is still running in it. Closing the terminal stops it.`,
          confirmLabel: 'Close and stop it',
          danger: true,
        });
        if (!yes) return false;
      }
      terminals.close(threadId);
      set((s) => {
        const ended = { ...s.ended };
        delete ended[threadId];
        const startedAt = { ...s.startedAt };
        delete startedAt[threadId];
        return { open: { ...s.open, [threadId]: false }, ended, startedAt };
      });
      return true;
    },
    restart: (threadId) => {
      void get()
        .terminals()
        .then((terminals) => terminals.restart(threadId));
    },
  }));
}
