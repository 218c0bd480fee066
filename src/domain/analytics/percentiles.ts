/**
 * Latency percentiles from the rollup's fixed histogram (LATENCY_BOUNDS_MS): the bucket holding the requested rank
 * is found from the cumulative counts and the value interpolated linearly inside it. The true percentile lies in
 * that bucket, so the estimate is off by less than the bucket's width (about 20% of the value above 5 ms).
 */
import { LATENCY_BOUNDS_MS } from '../../storage/repositories/analytics-rollup.ts';

/** `counts[slot - 1]`: requests in histogram slot `slot` (1-based, as width_bucket numbers them). */
export function percentile(counts: readonly number[], p: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = (p / 100) * total;
  let below = 0;
  for (let index = 0; index < counts.length; index++) {
    const count = counts[index] ?? 0;
    if (count === 0) continue;
    if (below + count >= rank) {
      const lower = LATENCY_BOUNDS_MS[index]!;
      const upper = LATENCY_BOUNDS_MS[index + 1];
      if (upper === undefined) return lower;
      return Math.round(lower + (upper - lower) * Math.max(0, Math.min(1, (rank - below) / count)));
    }
    below += count;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
}

export function emptyHistogram(): number[] {
  return new Array<number>(LATENCY_BOUNDS_MS.length).fill(0);
}
