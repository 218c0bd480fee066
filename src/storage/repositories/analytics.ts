/**
 * The analytics queries (api-surface §3.20). Each reads one source (analytics-sources.ts: the rollups where they
 * can answer, the raw rows otherwise) and sums it per time bucket or per group; the domain turns the sums into the
 * graphs. Numbers come back as float8 and times as epoch milliseconds, the same from PGlite and node-postgres.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rowsOf } from '../migrate.ts';
import { pagedGroups, type GroupPage } from './analytics-groups.ts';
import { LATENCY_BOUNDS_MS } from './analytics-rollup.ts';
import { bucketStart, hourlySource, logConditions, type AnalyticsFilters, type AnalyticsScope, type BucketSize } from './analytics-sources.ts';

export * from './analytics-sources.ts';

async function query<T>(db: Db, statement: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(statement));
}

export interface BucketTotals {
  ts: number;
  status: number;
  cache_status: string | null;
  retry_count: number;
  requests: number;
  errors: number;
  fallback_rescues: number;
  /** USD */
  cost: number;
  saved_cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  response_time_ms_sum: number;
}

/** Sums per time bucket, status, cache status and retry count: what most graphs are made of. */
export async function bucketTotals(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, size: BucketSize): Promise<BucketTotals[]> {
  return query<BucketTotals>(db, sql`select ${bucketStart('hour', size)} as ts, status, cache_status, retry_count,
      sum(requests)::float8 as requests, sum(errors)::float8 as errors, sum(fallback_rescues)::float8 as fallback_rescues,
      sum(cost)::float8 as cost, sum(saved_cost)::float8 as saved_cost, sum(prompt_tokens)::float8 as prompt_tokens,
      sum(completion_tokens)::float8 as completion_tokens, sum(total_tokens)::float8 as total_tokens,
      sum(response_time_ms_sum)::float8 as response_time_ms_sum
    from (${hourlySource(scope, filters)}) as source
    group by 1, status, cache_status, retry_count order by 1`);
}

const SLOT_SUMS = sql.raw(LATENCY_BOUNDS_MS.map((_, index) => `sum(latency_histogram[${index + 1}])::float8`).join(', '));

/** The latency histogram summed per time bucket: `counts[slot - 1]` per bucket (slot-wise sums, no unnest). */
export async function bucketHistograms(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, size: BucketSize) {
  return query<{ ts: number; counts: number[] }>(db, sql`select ${bucketStart('hour', size)} as ts, array[${SLOT_SUMS}] as counts
    from (${hourlySource(scope, filters)}) as source
    group by 1 order by 1`);
}

/**
 * Per value of one metadata key (raw rows: metadata is not a rollup key): requests, cost (USD), average tokens,
 * feedback on their traces (weighted value x weight, averaged per trace then over the requests that have some) and
 * when it was last seen.
 */
export function metadataGroups(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, key: string, page: GroupPage) {
  const conditions = [
    ...logConditions(scope, filters),
    sql`request_logs.created_at >= ${scope.from.toISOString()}::timestamptz`,
    sql`request_logs.created_at <= ${scope.to.toISOString()}::timestamptz`,
    sql`request_logs.metadata ->> ${key} is not null`,
  ];
  return pagedGroups<{
    metadata_value: string;
    requests: number;
    cost: number;
    avg_tokens: number | null;
    avg_weighted_feedback: number | null;
    requests_with_feedback: number;
    last_seen: number;
  }>(db, sql`select request_logs.metadata ->> ${key} as metadata_value, count(*)::float8 as requests,
      coalesce(sum(request_logs.cost), 0)::float8 as cost, avg(request_logs.total_tokens)::float8 as avg_tokens,
      avg(traces.weighted)::float8 as avg_weighted_feedback, count(traces.weighted)::float8 as requests_with_feedback,
      (extract(epoch from max(request_logs.created_at)) * 1000)::float8 as last_seen
    from request_logs
    left join (select trace_id, avg(value * weight) as weighted from feedback where organisation_id = ${scope.organisationId}::uuid group by trace_id) as traces
      on traces.trace_id = request_logs.trace_id
    where ${sql.join(conditions, sql` and `)}
    group by 1`, sql`requests desc, metadata_value`, page);
}
