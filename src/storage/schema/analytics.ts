/**
 * Analytics rollups: the request log summed per hour, kept up to date by the same statement that inserts a batch
 * of log rows (src/storage/repositories/request-logs.ts), so no query recomputes them and they never lag the log.
 * Key columns may be null (a row without a provider, model or key), so the unique constraints treat nulls as equal
 * (NULLS NOT DISTINCT, PostgreSQL 15+): that is what `on conflict ... do update` merges on.
 */
import { bigint, integer, numeric, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';

const counter = (name: string) => bigint(name, { mode: 'number' }).notNull().default(0);
const usd = (name: string) => numeric(name, { precision: 30, scale: 12 }).notNull().default('0');

/**
 * One row per organisation, workspace, UTC hour, provider, model, API key, status, cache status and retry count.
 * `latency_histogram` counts the requests per latency bucket (src/storage/repositories/analytics-histogram.ts
 * holds the bounds): p50/p90/p99 are estimated from it.
 */
export const analyticsHourly = pgTable(
  'analytics_hourly',
  {
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id'),
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    provider: text('provider'),
    model: text('model'),
    apiKeyId: uuid('api_key_id'),
    status: integer('status').notNull(),
    cacheStatus: text('cache_status'),
    retryCount: integer('retry_count').notNull(),
    requests: counter('requests'),
    /** requests that were not a success (is_success false) */
    errors: counter('errors'),
    /** successes answered by another target than one that was tried first (a fallback that rescued the request) */
    fallbackRescues: counter('fallback_rescues'),
    /** USD, as in request_logs; the API shows cents */
    cost: usd('cost'),
    savedCost: usd('saved_cost'),
    promptTokens: counter('prompt_tokens'),
    completionTokens: counter('completion_tokens'),
    totalTokens: counter('total_tokens'),
    responseTimeMsSum: counter('response_time_ms_sum'),
    latencyHistogram: integer('latency_histogram').array().notNull(),
  },
  (table) => [
    unique('analytics_hourly_key')
      .on(table.organisationId, table.workspaceId, table.hour, table.provider, table.model, table.apiKeyId, table.status, table.cacheStatus, table.retryCount)
      .nullsNotDistinct(),
  ],
);

/**
 * Requests and cost per organisation, workspace, UTC hour and user (`metadata._user`, else the key's user id): the
 * unique-users graphs and the users group read it when no filter needs the raw rows.
 */
export const analyticsUsersHourly = pgTable(
  'analytics_users_hourly',
  {
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id'),
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    userKey: text('user_key').notNull(),
    requests: counter('requests'),
    cost: usd('cost'),
  },
  (table) => [
    unique('analytics_users_hourly_key').on(table.organisationId, table.workspaceId, table.hour, table.userKey).nullsNotDistinct(),
  ],
);

/**
 * analytics_users_hourly summed per UTC day, kept up to date by the same statement: over a range of days the
 * unique-users graphs and the users group read one row per user and day (whole days inside the range), not one
 * per hour, so `count(distinct)` stays exact and reads 24 times fewer rows.
 */
export const analyticsUsersDaily = pgTable(
  'analytics_users_daily',
  {
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id'),
    /** UTC midnight */
    day: timestamp('day', { withTimezone: true, mode: 'date' }).notNull(),
    userKey: text('user_key').notNull(),
    requests: counter('requests'),
    cost: usd('cost'),
  },
  (table) => [
    unique('analytics_users_daily_key').on(table.organisationId, table.workspaceId, table.day, table.userKey).nullsNotDistinct(),
  ],
);
