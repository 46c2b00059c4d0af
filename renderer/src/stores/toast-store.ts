import { create } from 'zustand';

/** Errors stay until dismissed; notices fade on their own. */
export type ToastKind = 'error' | 'notice';

export interface ToastAction {
  readonly label: string;
  readonly run: () => void;
}

export interface Toast {
  readonly id: number;
  readonly kind: ToastKind;
  readonly message: string;
  readonly action: ToastAction | null;
}

export interface ToastState {
  readonly toasts: readonly Toast[];
  /** Shows a toast; returns its id. */
  show(kind: ToastKind, message: string, action?: ToastAction): number;
  dismiss(id: number): void;
}

const MAX_TOASTS = 4;
const NOTICE_MS = 6_000;
let nextId = 1;

/** Transient messages for the whole window: request errors and undoable notices. */
export const useToastStore = create<ToastState>()((set, get) => ({
  toasts: [],
  show: (kind, message, action) => {
    const id = nextId++;
    set((state) => ({ toasts: [...state.toasts, { id, kind, message, action: action ?? null }].slice(-MAX_TOASTS) }));
    if (kind === 'notice') setTimeout(() => get().dismiss(id), NOTICE_MS);
    return id;
  },
  dismiss: (id) => set((state) => ({ toasts: state.toasts.filter((t) => t.id !== id) })),
}));

/** Shows the message of a failed request (the server's own words for an RpcError). */
export function showRequestError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  useToastStore.getState().show('error', message);
}
