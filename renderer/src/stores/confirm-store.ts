import { create } from 'zustand';

/** A question that needs a yes before something irreversible happens. */
export interface ConfirmRequest {
  readonly title: string;
  readonly message: string;
  readonly confirmLabel: string;
  /** The button that says no (default "Cancel"; a question about cancelling needs another word). */
  readonly dismissLabel?: string;
  readonly danger: boolean;
}

export interface ConfirmState {
  readonly request: (ConfirmRequest & { readonly answer: (yes: boolean) => void }) | null;
  /** Shows the dialog; resolves true when confirmed, false when cancelled. */
  ask(request: ConfirmRequest): Promise<boolean>;
}

/** The window's one confirmation dialog. */
export const useConfirmStore = create<ConfirmState>()((set, get) => ({
  request: null,
  ask: (request) =>
    new Promise<boolean>((resolve) => {
      get().request?.answer(false);
      set({
        request: {
          ...request,
          answer: (yes) => {
            set({ request: null });
            resolve(yes);
          },
        },
      });
    }),
}));
