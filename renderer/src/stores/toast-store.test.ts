import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOAST_MS, useToastStore } from './toast-store.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  for (const toast of useToastStore.getState().toasts) useToastStore.getState().dismiss(toast.id);
  vi.useRealTimers();
});

describe('toasts', () => {
  it('dismiss errors on their own', () => {
    useToastStore.getState().show('error', 'The request failed.');
    expect(useToastStore.getState().toasts).toHaveLength(1);
    vi.advanceTimersByTime(TOAST_MS.error + 1);
    expect(useToastStore.getState().toasts).toHaveLength(0);
  });

  it('collapse a repeated message into one toast with a count, and restart its timer', () => {
    const show = useToastStore.getState().show;
    show('error', 'Not connected.');
    vi.advanceTimersByTime(TOAST_MS.error - 100);
    show('error', 'Not connected.');
    show('error', 'Not connected.');
    expect(useToastStore.getState().toasts.map((t) => [t.message, t.count])).toEqual([['Not connected.', 3]]);
    vi.advanceTimersByTime(200);
    expect(useToastStore.getState().toasts).toHaveLength(1);
  });

  it('keep at most three and stay while held', () => {
    const { show, hold } = useToastStore.getState();
    for (const n of [1, 2, 3, 4]) show('error', `Failure ${n}.`);
    const toasts = useToastStore.getState().toasts;
    expect(toasts.map((t) => t.message)).toEqual(['Failure 2.', 'Failure 3.', 'Failure 4.']);
    hold(toasts[0]!.id, true);
    vi.advanceTimersByTime(TOAST_MS.error + 1);
    expect(useToastStore.getState().toasts.map((t) => t.message)).toEqual(['Failure 2.']);
  });
});
