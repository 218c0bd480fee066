/**
 * The analytics groups (api-surface §3.20): by user, by model, by a metadata key's value, and (ours) by provider
 * and by API key. Counts and costs are strings, as the reference shows them; `total` counts the groups in all
 * pages, a page past the last one included.
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { metadataGroups } from '../../storage/repositories/analytics.ts';
import { apiKeyGroups, modelGroups, providerGroups } from '../../storage/repositories/analytics-groups.ts';
import { userGroups } from '../../storage/repositories/analytics-users.ts';
import type { AnalyticsInput, PageInput } from './inputs.ts';
import { cents, iso, resolveQuery, round2 } from './scope.ts';

function list<R, T>(page: { rows: R[]; total: number }, view: (row: R) => T) {
  return { object: 'list' as const, total: page.total, data: page.rows.map(view) };
}

const GROUP = 'analytics-group' as const;

export async function usersGroup(db: Db, principal: Principal, input: AnalyticsInput, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  return list(await userGroups(db, query.scope, query.filters, page), (row) => ({ object: GROUP, user: row.user, requests: String(row.requests), cost: String(cents(row.cost)) }));
}

export async function modelsGroup(db: Db, principal: Principal, input: AnalyticsInput, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  return list(await modelGroups(db, query.scope, query.filters, page), (row) => ({ object: GROUP, ai_model: row.ai_model, requests: String(row.requests) }));
}

export async function providersGroup(db: Db, principal: Principal, input: AnalyticsInput, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  return list(await providerGroups(db, query.scope, query.filters, page), (row) => ({
    object: GROUP, provider: row.provider, requests: String(row.requests), cost: String(cents(row.cost)),
  }));
}

export async function apiKeysGroup(db: Db, principal: Principal, input: AnalyticsInput, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  return list(await apiKeyGroups(db, query.scope, query.filters, page), (row) => ({
    object: GROUP, api_key_id: row.api_key_id, api_key_name: row.api_key_name, requests: String(row.requests), cost: String(cents(row.cost)),
  }));
}

export async function metadataGroup(db: Db, principal: Principal, input: AnalyticsInput, key: string, page: PageInput, now: Date) {
  const query = await resolveQuery(db, principal, input, now);
  return list(await metadataGroups(db, query.scope, query.filters, key, page), (row) => ({
    object: GROUP,
    metadata_value: row.metadata_value,
    requests: String(row.requests),
    cost: String(cents(row.cost)),
    avg_tokens: row.avg_tokens === null ? 0 : round2(row.avg_tokens),
    avg_weighted_feedback: row.avg_weighted_feedback === null ? null : round2(row.avg_weighted_feedback),
    requests_with_feedback: row.requests_with_feedback,
    last_seen: iso(row.last_seen),
  }));
}
