/**
 * Latency (from the rollup's histogram: p50/p90/p99 are estimates, see percentiles.ts), unique users, and the
 * feedback graphs (weighted feedback = value x weight).
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { bucketHistograms, bucketTotals } from '../../storage/repositories/analytics.ts';
import { userBuckets } from '../../storage/repositories/analytics-users.ts';
import { feedbackBuckets, feedbackByModel, feedbackScores } from '../../storage/repositories/feedback.ts';
import type { AnalyticsInput } from './inputs.ts';
import { emptyHistogram, percentile } from './percentiles.ts';
import { iso, resolveQuery, round2 } from './scope.ts';

type Input = [db: Db, principal: Principal, input: AnalyticsInput, now: Date];

function graph(summary: Record<string, unknown>, dataPoints: Array<Record<string, unknown>>) {
  return { object: 'analytics-graph' as const, summary, data_points: dataPoints };
}

const mean = (total: number, count: number) => (count === 0 ? 0 : round2(total / count));
const nullableRound = (value: number | null) => (value === null ? null : round2(value));

export async function latencyGraph(db: Db, principal: Principal, input: AnalyticsInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  const [slots, totals] = await Promise.all([
    bucketHistograms(db, query.scope, query.filters, query.size),
    bucketTotals(db, query.scope, query.filters, query.size),
  ]);
  const histograms = new Map(query.buckets.map((bucket) => [bucket, emptyHistogram()]));
  const whole = emptyHistogram();
  for (const row of slots) {
    const histogram = histograms.get(row.ts);
    row.counts.forEach((count, index) => {
      if (histogram) histogram[index] = Number(count);
      whole[index] = (whole[index] ?? 0) + Number(count);
    });
  }
  const sums = new Map<number, { ms: number; requests: number }>();
  for (const row of totals) {
    const entry = sums.get(row.ts) ?? { ms: 0, requests: 0 };
    entry.ms += row.response_time_ms_sum;
    entry.requests += row.requests;
    sums.set(row.ts, entry);
  }
  const point = (histogram: number[], entry: { ms: number; requests: number } | undefined) => ({
    avg: mean(entry?.ms ?? 0, entry?.requests ?? 0),
    p50: percentile(histogram, 50) ?? 0,
    p90: percentile(histogram, 90) ?? 0,
    p99: percentile(histogram, 99) ?? 0,
  });
  const all = [...sums.values()].reduce((total, entry) => ({ ms: total.ms + entry.ms, requests: total.requests + entry.requests }), { ms: 0, requests: 0 });
  return graph(point(whole, all), [...histograms.entries()].map(([ts, histogram]) => ({ timestamp: iso(ts), ...point(histogram, sums.get(ts)) })));
}

/** Average latency of cache hits (exact and semantic) per bucket. */
export async function cacheLatencyGraph(db: Db, principal: Principal, input: AnalyticsInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  const totals = await bucketTotals(db, query.scope, query.filters, query.size);
  const sums = new Map<number, { ms: number; requests: number }>();
  for (const row of totals) {
    if (row.cache_status !== 'HIT' && row.cache_status !== 'SEMANTIC HIT') continue;
    const entry = sums.get(row.ts) ?? { ms: 0, requests: 0 };
    entry.ms += row.response_time_ms_sum;
    entry.requests += row.requests;
    sums.set(row.ts, entry);
  }
  return graph({}, query.buckets.map((ts) => ({ timestamp: iso(ts), avg: mean(sums.get(ts)?.ms ?? 0, sums.get(ts)?.requests ?? 0) })));
}

async function users(...[db, principal, input, now]: Input) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await userBuckets(db, query.scope, query.filters, query.size);
  const whole = rows.find((row) => row.ts === null) ?? { users: 0, requests: 0 };
  const byBucket = new Map(rows.filter((row) => row.ts !== null).map((row) => [row.ts!, row]));
  return { whole, points: query.buckets.map((ts) => ({ ts, users: byBucket.get(ts)?.users ?? 0, requests: byBucket.get(ts)?.requests ?? 0 })) };
}

/** Unique users: `metadata._user`, else the API key's user; a user of several buckets counts once in the total. */
export async function usersGraph(...args: Input) {
  const { whole, points } = await users(...args);
  return graph({ total: whole.users }, points.map((point) => ({ timestamp: iso(point.ts), total: point.users })));
}

/** Requests made by users: the total, how many users, and requests per user (per bucket too). */
export async function userRequestsGraph(...args: Input) {
  const { whole, points } = await users(...args);
  return graph(
    { total: whole.requests, unique: whole.users, avg: mean(whole.requests, whole.users) },
    points.map((point) => ({ timestamp: iso(point.ts), avg: mean(point.requests, point.users) })),
  );
}

async function feedback(...[db, principal, input, now]: Input) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await feedbackBuckets(db, query.scope, query.filters, query.size);
  const whole = rows.find((row) => row.ts === null) ?? { total: 0, avg: null };
  const byBucket = new Map(rows.filter((row) => row.ts !== null).map((row) => [row.ts!, row]));
  return { whole, points: query.buckets.map((ts) => ({ ts, total: byBucket.get(ts)?.total ?? 0, avg: byBucket.get(ts)?.avg ?? null })) };
}

export async function feedbacksGraph(...args: Input) {
  const { whole, points } = await feedback(...args);
  return graph({ total: whole.total }, points.map((point) => ({ timestamp: iso(point.ts), total: point.total })));
}

export async function weightedFeedbackGraph(...args: Input) {
  const { whole, points } = await feedback(...args);
  return graph({ avg: nullableRound(whole.avg) ?? 0 }, points.map((point) => ({ timestamp: iso(point.ts), avg: nullableRound(point.avg) ?? 0 })));
}

export async function feedbackScoresGraph(...[db, principal, input, now]: Input) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await feedbackScores(db, query.scope, query.filters);
  return graph({ total: rows.reduce((total, row) => total + row.total, 0) }, rows.map((row) => ({ score: row.score, total: row.total })));
}

export async function feedbackModelsGraph(...[db, principal, input, now]: Input) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await feedbackByModel(db, query.scope, query.filters);
  return graph({}, rows.map((row) => ({ ai_model: row.ai_model, total: row.total, avg_weighted_feedback: nullableRound(row.avg_weighted_feedback) ?? 0 })));
}
