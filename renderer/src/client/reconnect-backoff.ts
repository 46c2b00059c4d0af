/** Delay before reconnect attempt `attempt` (1-based): doubling from 250 ms, capped, with jitter. */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(250 * 2 ** Math.max(0, attempt - 1), 10_000);
  return Math.round(base * (0.8 + random() * 0.4));
}
