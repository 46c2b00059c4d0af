import { create } from 'zustand';
import { describeRequestError, type ErrorAction } from '../format/request-errors.js';

/**
 * Errors and notices fade on their own; errors stay a little longer. `done`
 * (a job finished) and `attention` (something waits for the person) tell what
 * happened elsewhere and stay longest.
 */
export type ToastKind = 'error' | 'notice' | 'done' | 'attention';

export interface ToastAction {
  readonly label: string;
  readonly run: () => void;
}

export interface Toast {
  readonly id: number;
  readonly kind: ToastKind;
  readonly message: string;
  /** A second line under the message (what finished, the command that waits). */
  readonly detail: string | null;
  readonly action: ToastAction | null;
  /** How many times this same message was shown in a row (repeats collapse into one toast). */
  readonly count: number;
}

export interface ToastState {
  readonly toasts: readonly Toast[];
  /** Shows a toast (or bumps the count of the same one already shown); returns its id. */
  show(kind: ToastKind, message: string, action?: ToastAction, detail?: string): number;
  dismiss(id: number): void;
  /** Keeps a toast up while the pointer or focus is on it; `false` restarts its timer. */
  hold(id: number, held: boolean): void;
}

const MAX_TOASTS = 3;
/** How long a toast stays, by kind. */
export const TOAST_MS: Readonly<Record<ToastKind, number>> = { notice: 6_000, error: 10_000, done: 10_000, attention: 15_000 };
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

/** Transient messages for the whole window: request errors and undoable notices. */
export const useToastStore = create<ToastState>()((set, get) => {
  const schedule = (toast: Toast) => {
    clearTimeout(timers.get(toast.id));
    timers.set(
      toast.id,
      setTimeout(() => get().dismiss(toast.id), TOAST_MS[toast.kind]),
    );
  };
  return {
    toasts: [],
    show: (kind, message, action, detail) => {
      const same = get().toasts.find((t) => t.kind === kind && t.message === message && t.detail === (detail ?? null));
      if (same) {
        const bumped = { ...same, count: same.count + 1, action: action ?? same.action };
        set((state) => ({ toasts: state.toasts.map((t) => (t.id === same.id ? bumped : t)) }));
        schedule(bumped);
        return same.id;
      }
      const toast: Toast = { id: nextId++, kind, message, detail: detail ?? null, action: action ?? null, count: 1 };
      const kept = [...get().toasts, toast];
      for (const dropped of kept.slice(0, -MAX_TOASTS)) clearTimeout(timers.get(dropped.id));
      set({ toasts: kept.slice(-MAX_TOASTS) });
      schedule(toast);
      return toast.id;
    },
    dismiss: (id) => {
      clearTimeout(timers.get(id));
      timers.delete(id);
      set((state) => ({ toasts: state.toasts.filter((t) => t.id !== id) }));
    },
    hold: (id, held) => {
      const toast = get().toasts.find((t) => t.id === id);
      if (!toast) return;
      if (held) clearTimeout(timers.get(id));
      else schedule(toast);
    },
  };
});

/** What the action of a described error does, registered once by the window (services/services.ts). */
let errorActions: Partial<Record<NonNullable<ErrorAction>, ToastAction>> = {};

export function setErrorActions(actions: Partial<Record<NonNullable<ErrorAction>, ToastAction>>): void {
  errorActions = actions;
}

/** Errors the window already explains elsewhere (the connection banner), registered by services/services.ts. */
let explainedElsewhere: (error: unknown) => boolean = () => false;

export function setExplainedElsewhere(test: (error: unknown) => boolean): void {
  explainedElsewhere = test;
}

/** Shows a failed request as a sentence (see describeRequestError), with its action as a button. */
export function showRequestError(error: unknown): void {
  if (explainedElsewhere(error)) return;
  const { message, action } = describeRequestError(error);
  const button = action === null ? undefined : errorActions[action];
  useToastStore.getState().show('error', message, button);
}
