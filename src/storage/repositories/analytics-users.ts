/** The users analytics: unique users per time bucket and the users group (analytics_users_hourly and _daily, or the raw rows). */
import { sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rowsOf } from '../migrate.ts';
import { pagedGroups, type GroupPage } from './analytics-groups.ts';
import { bucketStart, usersSource, type AnalyticsFilters, type AnalyticsScope, type BucketSize } from './analytics-sources.ts';

/**
 * Unique users and their requests per time bucket, and over the whole range (the row whose `ts` is null): a user
 * seen in two buckets counts once in the range's total. Exact: day and week buckets read one row per user and day.
 */
export async function userBuckets(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, size: BucketSize) {
  const source = usersSource(scope, filters, size === 'hour' ? 'hour' : 'day');
  const result = await db.execute(sql`select ts, count(distinct user_key)::float8 as users, sum(requests)::float8 as requests
    from (select ${bucketStart('hour', size)} as ts, user_key, requests from (${source}) as source) as bucketed
    group by grouping sets ((ts), ()) order by ts nulls first`);
  return rowsOf<{ ts: number | null; users: number; requests: number }>(result);
}

/** Requests and cost (USD) per user, most active first. */
export function userGroups(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, page: GroupPage) {
  return pagedGroups<{ user: string; requests: number; cost: number }>(db, sql`select user_key as user, sum(requests)::float8 as requests,
      sum(cost)::float8 as cost
    from (${usersSource(scope, filters, 'day')}) as source group by user_key`, sql`requests desc, "user"`, page);
}
