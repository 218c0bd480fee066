/**
 * The analytics groups read from the hourly rollup (by model, provider and API key) and the paging every group
 * shares. A page past the last one still reports how many groups there are: the window count of the page query
 * has no row to ride on there, so the groups are counted once more.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rowsOf } from '../migrate.ts';
import { hourlySource, type AnalyticsFilters, type AnalyticsScope } from './analytics-sources.ts';

export interface GroupPage {
  offset: number;
  limit: number;
}

/** One page of `grouped` (a select with one row per group) in `order`, and the number of groups in all pages. */
export async function pagedGroups<T>(db: Db, grouped: SQL, order: SQL, page: GroupPage): Promise<{ rows: T[]; total: number }> {
  const rows = rowsOf<T & { total: number }>(await db.execute(sql`select *, (count(*) over ())::float8 as total from (${grouped}) as grouped
    order by ${order} offset ${page.offset} limit ${page.limit}`));
  if (rows.length > 0 || page.offset === 0) return { rows, total: rows[0]?.total ?? 0 };
  const [counted] = rowsOf<{ total: number }>(await db.execute(sql`select count(*)::float8 as total from (${grouped}) as grouped`));
  return { rows, total: counted?.total ?? 0 };
}

/** Requests per model, most used first. */
export function modelGroups(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, page: GroupPage) {
  return pagedGroups<{ ai_model: string | null; requests: number }>(db, sql`select model as ai_model, sum(requests)::float8 as requests
    from (${hourlySource(scope, filters)}) as source group by model`, sql`requests desc, ai_model nulls last`, page);
}

/** Requests and cost (USD) per provider (the adapter's name), most used first. */
export function providerGroups(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, page: GroupPage) {
  return pagedGroups<{ provider: string | null; requests: number; cost: number }>(db, sql`select provider, sum(requests)::float8 as requests,
      sum(cost)::float8 as cost
    from (${hourlySource(scope, filters)}) as source group by provider`, sql`requests desc, provider nulls last`, page);
}

/** Requests and cost (USD) per API key, with the key's name while the key exists, most used first. */
export function apiKeyGroups(db: Db, scope: AnalyticsScope, filters: AnalyticsFilters, page: GroupPage) {
  return pagedGroups<{ api_key_id: string | null; api_key_name: string | null; requests: number; cost: number }>(db, sql`select
      source.api_key_id, min(api_keys.name) as api_key_name, sum(source.requests)::float8 as requests, sum(source.cost)::float8 as cost
    from (${hourlySource(scope, filters)}) as source
    left join api_keys on api_keys.id = source.api_key_id and api_keys.organisation_id = ${scope.organisationId}::uuid
    group by source.api_key_id`, sql`requests desc, api_key_id nulls last`, page);
}
