/** The analytics groups (api-surface §3.20): by user, by model, by a metadata key's value. Counts and costs are strings, as the reference shows them. */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { metadataGroups, modelGroups } from '../../storage/repositories/analytics.ts';
import { userGroups } from '../../storage/repositories/analytics-users.ts';
import type { AnalyticsInput, PageInput } from './inputs.ts';
import { cents, iso, resolveQuery, round2 } from './scope.ts';

function list<T>(total: number, data: T[]) {
  return { object: 'list' as const, total, data };
}

export async function usersGroup(db: Db, principal: Principal, input: AnalyticsInput, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await userGroups(db, query.scope, query.filters, page);
  return list(rows[0]?.total ?? 0, rows.map((row) => ({ object: 'analytics-group' as const, user: row.user, requests: String(row.requests), cost: String(cents(row.cost)) })));
}

export async function modelsGroup(db: Db, principal: Principal, input: AnalyticsInput, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await modelGroups(db, query.scope, query.filters, page);
  return list(rows[0]?.total ?? 0, rows.map((row) => ({ object: 'analytics-group' as const, ai_model: row.ai_model, requests: String(row.requests) })));
}

export async function metadataGroup(db: Db, principal: Principal, input: AnalyticsInput, key: string, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  const rows = await metadataGroups(db, query.scope, query.filters, key, page);
  return list(rows[0]?.total ?? 0, rows.map((row) => ({
    object: 'analytics-group' as const,
    metadata_value: row.metadata_value,
    requests: String(row.requests),
    cost: String(cents(row.cost)),
    avg_tokens: row.avg_tokens === null ? 0 : round2(row.avg_tokens),
    avg_weighted_feedback: row.avg_weighted_feedback === null ? null : round2(row.avg_weighted_feedback),
    requests_with_feedback: row.requests_with_feedback,
    last_seen: iso(row.last_seen),
  })));
}
