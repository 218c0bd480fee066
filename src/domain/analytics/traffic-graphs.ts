/**
 * The graphs made of per-bucket sums (analytics_hourly, or raw rows in its shape): requests, cost, tokens, errors,
 * error rate, error stacks and status codes, rescued requests, cache hit rate and the cache summary. Costs are in
 * cents; averages and rates are per request, rates in percent, rounded to two decimals.
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { bucketTotals, type BucketTotals } from '../../storage/repositories/analytics.ts';
import type { AnalyticsInput } from './inputs.ts';
import { cents, iso, resolveQuery, round2 } from './scope.ts';

const isHit = (row: BucketTotals) => row.cache_status === 'HIT' || row.cache_status === 'SEMANTIC HIT';
const sum = (rows: readonly BucketTotals[], pick: (row: BucketTotals) => number) => rows.reduce((total, row) => total + pick(row), 0);
const ratio = (part: number, whole: number) => (whole === 0 ? 0 : round2((part / whole) * 100));
const mean = (total: number, count: number) => (count === 0 ? 0 : round2(total / count));

function graph(summary: Record<string, unknown>, dataPoints: Array<Record<string, unknown>>) {
  return { object: 'analytics-graph' as const, summary, data_points: dataPoints };
}

async function totals(db: Db, principal: Principal, input: AnalyticsInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await bucketTotals(db, query.scope, query.filters, query.size);
  const byBucket = new Map<number, BucketTotals[]>(query.buckets.map((bucket) => [bucket, []]));
  for (const row of rows) byBucket.get(row.ts)?.push(row);
  return { rows, buckets: [...byBucket.entries()] };
}

type Input = [db: Db, principal: Principal, input: AnalyticsInput, now: Date];

export async function requestsGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  return graph({ total: sum(rows, (row) => row.requests) }, buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), total: sum(bucket, (row) => row.requests) })));
}

export async function costGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  const point = (set: BucketTotals[]) => {
    const total = cents(sum(set, (row) => row.cost));
    return { total, avg: mean(total, sum(set, (row) => row.requests)) };
  };
  return graph(point(rows), buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), ...point(bucket) })));
}

export async function tokensGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  const point = (set: BucketTotals[]) => {
    const total = sum(set, (row) => row.total_tokens);
    return { total, avg: mean(total, sum(set, (row) => row.requests)) };
  };
  return graph(point(rows), buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), ...point(bucket) })));
}

export async function errorsGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  return graph({ total: sum(rows, (row) => row.errors) }, buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), total: sum(bucket, (row) => row.errors) })));
}

export async function errorRateGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  const rate = (set: BucketTotals[]) => ratio(sum(set, (row) => row.errors), sum(set, (row) => row.requests));
  return graph({ rate: rate(rows) }, buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), rate: rate(bucket) })));
}

function errorsByStatus(set: readonly BucketTotals[]): Array<{ response_status_code: number; count: number }> {
  const counts = new Map<number, number>();
  for (const row of set) if (row.errors > 0) counts.set(row.status, (counts.get(row.status) ?? 0) + row.errors);
  return [...counts.entries()].sort(([a], [b]) => a - b).map(([status, count]) => ({ response_status_code: status, count }));
}

export async function errorStacksGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  return graph({ total: sum(rows, (row) => row.errors) }, buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), stats: errorsByStatus(bucket) })));
}

export async function errorStatusCodesGraph(...args: Input) {
  const { rows } = await totals(...args);
  const stats = errorsByStatus(rows);
  return graph(
    { total_errors: sum(rows, (row) => row.errors), unique_error_codes: stats.length },
    stats.map((stat) => ({ status_code: stat.response_status_code, count: stat.count })),
  );
}

/** Successes after retries, by how many retries it took; and successes a fallback target answered. */
export async function rescuedGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  const retries = (set: BucketTotals[]) => {
    const counts = new Map<number, number>();
    for (const row of set) {
      const successes = row.requests - row.errors;
      if (row.retry_count > 0 && successes > 0) counts.set(row.retry_count, (counts.get(row.retry_count) ?? 0) + successes);
    }
    return [...counts.entries()].sort(([a], [b]) => a - b).map(([retry, count]) => ({ retry_success_count: retry, count }));
  };
  const fallback = (set: BucketTotals[]) => sum(set, (row) => row.fallback_rescues);
  return graph(
    { retry: retries(rows).reduce((total, entry) => total + entry.count, 0), fallback: fallback(rows) },
    buckets.map(([ts, bucket]) => ({ timestamp: iso(ts), retry: retries(bucket), fallback: fallback(bucket) })),
  );
}

/** Hits (exact and semantic) per bucket, the hit rate, and the savings so far (cents, cumulative from the range's start). */
export async function cacheHitRateGraph(...args: Input) {
  const { rows, buckets } = await totals(...args);
  const of = (set: BucketTotals[], status: string, pick: (row: BucketTotals) => number) => sum(set.filter((row) => row.cache_status === status), pick);
  let simpleSaved = 0;
  let semanticSaved = 0;
  const points = buckets.map(([ts, bucket]) => {
    const simple = of(bucket, 'HIT', (row) => row.requests);
    const semantic = of(bucket, 'SEMANTIC HIT', (row) => row.requests);
    simpleSaved += of(bucket, 'HIT', (row) => row.saved_cost);
    semanticSaved += of(bucket, 'SEMANTIC HIT', (row) => row.saved_cost);
    return {
      timestamp: iso(ts),
      simple_hits: simple,
      semantic_hits: semantic,
      rate: ratio(simple + semantic, sum(bucket, (row) => row.requests)),
      cumulative_simple_cache_savings: cents(simpleSaved),
      cumulative_semantic_cache_savings: cents(semanticSaved),
    };
  });
  const hits = sum(rows.filter(isHit), (row) => row.requests);
  return graph({ total: hits, rate: ratio(hits, sum(rows, (row) => row.requests)) }, points);
}

/**
 * Cache hits, their average latency, all requests, and the speed-up: how much faster a hit answered than a miss,
 * in percent of the misses' average latency (0 when either is missing).
 */
export async function cacheSummary(...args: Input) {
  const { rows } = await totals(...args);
  const hits = rows.filter(isHit);
  const misses = rows.filter((row) => row.cache_status === 'MISS');
  const hitCount = sum(hits, (row) => row.requests);
  const hitLatency = mean(sum(hits, (row) => row.response_time_ms_sum), hitCount);
  const missLatency = mean(sum(misses, (row) => row.response_time_ms_sum), sum(misses, (row) => row.requests));
  const speedup = hitCount === 0 || missLatency === 0 ? 0 : round2(((missLatency - hitLatency) / missLatency) * 100);
  return {
    object: 'analytics-summary' as const,
    summary: { hits: hitCount, avg_latency: hitLatency, total_requests: sum(rows, (row) => row.requests), cache_speedup: speedup },
  };
}
