/** Summary of a sample of durations in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/** The q-quantile (0..1) of an ascending-sorted sample, nearest-rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Rounds to microseconds, which is as fine as these figures mean anything. */
export function ms(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Median, p95, p99, mean, min and max of a sample. */
export function summarize(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    medianMs: ms(quantile(sorted, 0.5)),
    p95Ms: ms(quantile(sorted, 0.95)),
    p99Ms: ms(quantile(sorted, 0.99)),
    meanMs: ms(sum / Math.max(1, sorted.length)),
    minMs: ms(sorted[0] ?? Number.NaN),
    maxMs: ms(sorted[sorted.length - 1] ?? Number.NaN),
  };
}
