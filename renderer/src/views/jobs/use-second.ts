import { useSyncExternalStore } from 'react';

let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => {
    now = Date.now();
    for (const l of listeners) l();
  }, 1000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
}

const still = () => () => undefined;

/**
 * The current time, re-rendering every second while `live` (a running job's
 * clock, a retry countdown); one timer for the whole window, none when idle.
 */
export function useSecond(live: boolean): number {
  return useSyncExternalStore(live ? subscribe : still, () => (live ? now : Date.now()));
}
