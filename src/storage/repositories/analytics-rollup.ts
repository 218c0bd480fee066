/**
 * The hourly rollup's shape, written once: the aggregate that turns request-log rows into `analytics_hourly` rows.
 * The batch insert (request-logs.ts) runs it over the rows it just inserted and merges the result into the rollup
 * (`on conflict ... do update`, sums added); the analytics queries run the same aggregate over raw rows where the
 * rollup cannot answer (the partial hours at a range's edges, or filters the rollup does not key on), so both paths
 * yield the same columns and every query reads one shape.
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * Lower bounds (ms) of the latency histogram's buckets: 0, then about 20% apart up to 10 minutes, the last bucket
 * open-ended. A percentile estimated from it lies in the bucket that holds the true value, so it is off by at most
 * that bucket's width (20% of the value above 5 ms, a few ms below); interpolating inside the bucket usually does
 * better. The bounds are part of the stored data: changing them needs a new rollup.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = (() => {
  const bounds = [0];
  for (let bound = 1; bound < 600_000; bound = Math.max(bound + 1, Math.round(bound * 1.2))) bounds.push(bound);
  return Object.freeze(bounds);
})();

const BOUNDS_LITERAL = `array[${LATENCY_BOUNDS_MS.join(',')}]::int[]`;
const HISTOGRAM_ARRAY = `array[${LATENCY_BOUNDS_MS.map((_, index) => `count(*) filter (where latency_bucket = ${index + 1})`).join(', ')}]::int[]`;

/** The key columns of analytics_hourly, in order. */
export const ROLLUP_KEY = 'organisation_id, workspace_id, hour, provider, model, api_key_id, status, cache_status, retry_count';
/** Every column of analytics_hourly, in order. */
export const ROLLUP_COLUMNS = `${ROLLUP_KEY}, requests, errors, fallback_rescues, cost, saved_cost, prompt_tokens, completion_tokens, total_tokens, response_time_ms_sum, latency_histogram`;

/** The user a row counts for in the users analytics: `metadata._user`, else the API key's user. */
export const USER_KEY_EXPRESSION = `coalesce(nullif(metadata->>'_user', ''), user_id::text)`;

/**
 * `source` yields request-log rows (every column the aggregate reads); the result has ROLLUP_COLUMNS. A request a
 * fallback rescued is a success answered by a target other than one tried before it (its attempts name another path).
 */
export function rollupAggregate(source: SQL): SQL {
  return sql`select organisation_id, workspace_id, date_trunc('hour', created_at, 'UTC') as hour, provider, model, api_key_id, status,
      cache_status, retry_count, count(*)::bigint as requests, count(*) filter (where not is_success)::bigint as errors,
      count(*) filter (where rescued)::bigint as fallback_rescues, coalesce(sum(cost), 0) as cost, coalesce(sum(saved_cost), 0) as saved_cost,
      coalesce(sum(prompt_tokens), 0)::bigint as prompt_tokens, coalesce(sum(completion_tokens), 0)::bigint as completion_tokens,
      coalesce(sum(total_tokens), 0)::bigint as total_tokens, coalesce(sum(response_time_ms), 0)::bigint as response_time_ms_sum,
      ${sql.raw(HISTOGRAM_ARRAY)} as latency_histogram
    from (
      select s.*, width_bucket(s.response_time_ms, ${sql.raw(BOUNDS_LITERAL)}) as latency_bucket,
        (s.is_success and exists (select 1 from jsonb_array_elements(s.attempts) as attempt where attempt->>'path' is distinct from s.last_used_option_index)) as rescued
      from (${source}) as s
    ) as rows
    group by organisation_id, workspace_id, date_trunc('hour', created_at, 'UTC'), provider, model, api_key_id, status, cache_status, retry_count`;
}

/**
 * `source` yields request-log rows; the result: organisation_id, workspace_id, hour, user_key, requests, cost (rows
 * without a user left out). With `period` 'day' the rows are per UTC day (analytics_users_daily), `hour` the day's start.
 */
export function usersAggregate(source: SQL, period: 'hour' | 'day' = 'hour'): SQL {
  const start = sql.raw(`date_trunc('${period}', created_at, 'UTC')`);
  return sql`select organisation_id, workspace_id, ${start} as hour, user_key, count(*)::bigint as requests,
      coalesce(sum(cost), 0) as cost
    from (select s.*, ${sql.raw(USER_KEY_EXPRESSION)} as user_key from (${source}) as s) as rows
    where user_key is not null
    group by organisation_id, workspace_id, ${start}, user_key`;
}

const SUMMED = ['requests', 'errors', 'fallback_rescues', 'cost', 'saved_cost', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'response_time_ms_sum'];

/**
 * Merges the aggregate of `inserted` (rows just written to request_logs) into the three rollups. Concurrent batches
 * update the same rollup rows (every batch of a day meets the same users' daily rows), so each merge takes its row
 * locks in key order (`order by` the key): two batches then wait for each other instead of deadlocking, and each
 * adds its sums to what the other committed (`on conflict ... do update`), so the rollups stay exact.
 */
export function mergeIntoRollups(inserted: string): { hourly: SQL; users: SQL; usersDaily: SQL } {
  const from = sql.raw(`select * from ${inserted}`);
  const sums = SUMMED.map((column) => `${column} = analytics_hourly.${column} + excluded.${column}`).join(', ');
  const usersMerge = (table: string, period: 'hour' | 'day') => sql`insert into ${sql.raw(table)} (organisation_id, workspace_id, ${sql.raw(period)}, user_key, requests, cost)
      ${usersAggregate(from, period)} order by 1, 2, 3, 4
      on conflict on constraint ${sql.raw(`${table}_key`)} do update set requests = ${sql.raw(table)}.requests + excluded.requests,
      cost = ${sql.raw(table)}.cost + excluded.cost`;
  return {
    hourly: sql`insert into analytics_hourly (${sql.raw(ROLLUP_COLUMNS)}) ${rollupAggregate(from)} order by 1, 2, 3, 4, 5, 6, 7, 8, 9
      on conflict on constraint analytics_hourly_key do update set ${sql.raw(sums)},
      latency_histogram = array(select a + b from unnest(analytics_hourly.latency_histogram, excluded.latency_histogram) with ordinality as h(a, b, i) order by i)`,
    users: usersMerge('analytics_users_hourly', 'hour'),
    usersDaily: usersMerge('analytics_users_daily', 'day'),
  };
}
