import { create } from 'zustand';

export interface DraftState {
  /** Unsent text per thread, so switching threads keeps what was typed. */
  readonly drafts: Readonly<Record<string, string>>;
  setDraft(threadId: string, text: string): void;
  /** Bumped to move keyboard focus to the composer (e.g. after a suggestion filled it). */
  readonly focusRequest: number;
  requestFocus(): void;
}

/** What the person is typing in each thread's composer. */
export const useDraftStore = create<DraftState>()((set) => ({
  drafts: {},
  focusRequest: 0,
  requestFocus: () => set((state) => ({ focusRequest: state.focusRequest + 1 })),
  setDraft: (threadId, text) =>
    set((state) => {
      const drafts = { ...state.drafts };
      if (text === '') delete drafts[threadId];
      else drafts[threadId] = text;
      return { drafts };
    }),
}));
