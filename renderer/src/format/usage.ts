import type { TokenUsageBreakdown } from '../../../shared/protocol/thread.js';

const whole = new Intl.NumberFormat('en-US');

/** A token count with thousands separators: "1,234". */
export function formatCount(count: number): string {
  return whole.format(count);
}

/** Token usage of a turn for its footer: "1,234 tokens · 820 cached (66%)"; the cache part only when there was a hit. */
export function formatUsage(usage: TokenUsageBreakdown): string {
  const total = `${formatCount(usage.totalTokens)} ${usage.totalTokens === 1 ? 'token' : 'tokens'}`;
  if (usage.cachedInputTokens <= 0 || usage.inputTokens <= 0) return total;
  const share = Math.round((usage.cachedInputTokens / usage.inputTokens) * 100);
  return `${total} · ${formatCount(usage.cachedInputTokens)} cached (${share}%)`;
}

/** A short count for tight places: 950, 12.3k, 1.2M. */
export function formatCompact(count: number): string {
  if (count < 1_000) return String(count);
  if (count < 1_000_000) return `${trim(count / 1_000)}k`;
  return `${trim(count / 1_000_000)}M`;
}

/** How long something took: "850 ms", "4.2 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trim(ms / 1_000)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

function trim(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
}
