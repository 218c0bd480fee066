/**
 * Usage limits policies and their entities (one row per group-by value: `metadata._user:ada`). An archived policy
 * is kept for the record and no longer applies. An entity's `current_usage` is the settled usage of the period that
 * starts at `period_start` (null: a cumulative policy), as the budgets' writer last stored it from the live
 * counters (src/limits/budgets-writer.ts).
 */
import { and, asc, count, eq, ilike, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { apiKeys, usageLimitEntities, usageLimitPolicies, workspaces } from '../schema.ts';

export type UsageLimitPolicyRow = typeof usageLimitPolicies.$inferSelect;
export type NewUsageLimitPolicyRow = typeof usageLimitPolicies.$inferInsert;
export type UsageLimitEntityRow = typeof usageLimitEntities.$inferSelect;

export async function insertUsageLimitPolicy(db: Db, values: NewUsageLimitPolicyRow): Promise<UsageLimitPolicyRow> {
  const rows = await db.insert(usageLimitPolicies).values(values).returning();
  return rows[0]!;
}

/** A policy of the organisation in the given status. */
export async function findUsageLimitPolicy(
  db: Db,
  organisationId: string,
  id: string,
  status: 'active' | 'archived' = 'active',
): Promise<UsageLimitPolicyRow | undefined> {
  const rows = await db
    .select()
    .from(usageLimitPolicies)
    .where(and(eq(usageLimitPolicies.organisationId, organisationId), eq(usageLimitPolicies.id, id), eq(usageLimitPolicies.status, status)))
    .limit(1);
  return rows[0];
}

/** Locks an active policy until the transaction ends: concurrent updates of one policy apply one after the other. */
export async function lockUsageLimitPolicy(db: Db, id: string): Promise<UsageLimitPolicyRow | undefined> {
  const rows = await db
    .select()
    .from(usageLimitPolicies)
    .where(and(eq(usageLimitPolicies.id, id), eq(usageLimitPolicies.status, 'active')))
    .for('update');
  return rows[0];
}

export interface UsageLimitPolicyFilter {
  organisationId: string;
  status: 'active' | 'archived';
  type?: string | undefined;
  /** only this workspace's policies */
  workspaceId?: string | undefined;
  /** this workspace's policies and the organisation-wide ones (what a workspace key sees) */
  visibleToWorkspace?: string | undefined;
}

export async function listUsageLimitPolicies(
  db: Db,
  filter: UsageLimitPolicyFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: UsageLimitPolicyRow[] }> {
  const conditions: Array<SQL | undefined> = [
    eq(usageLimitPolicies.organisationId, filter.organisationId),
    eq(usageLimitPolicies.status, filter.status),
  ];
  if (filter.type) conditions.push(eq(usageLimitPolicies.type, filter.type));
  if (filter.workspaceId) conditions.push(eq(usageLimitPolicies.workspaceId, filter.workspaceId));
  if (filter.visibleToWorkspace) {
    conditions.push(or(eq(usageLimitPolicies.workspaceId, filter.visibleToWorkspace), isNull(usageLimitPolicies.workspaceId)));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(usageLimitPolicies).where(where),
    db.select().from(usageLimitPolicies).where(where).orderBy(asc(usageLimitPolicies.createdAt), asc(usageLimitPolicies.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Every active policy of an organisation: what the hot path holds in process. */
export async function activeUsageLimitPolicies(db: Db, organisationId: string): Promise<UsageLimitPolicyRow[]> {
  return db
    .select()
    .from(usageLimitPolicies)
    .where(and(eq(usageLimitPolicies.organisationId, organisationId), eq(usageLimitPolicies.status, 'active')))
    .orderBy(asc(usageLimitPolicies.createdAt), asc(usageLimitPolicies.id));
}

/** Changes an active policy; undefined when it is gone (archived concurrently). */
export async function updateUsageLimitPolicyRow(
  db: Db,
  id: string,
  values: Partial<NewUsageLimitPolicyRow>,
): Promise<UsageLimitPolicyRow | undefined> {
  const rows = await db
    .update(usageLimitPolicies)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(usageLimitPolicies.id, id), eq(usageLimitPolicies.status, 'active')))
    .returning();
  return rows[0];
}

/** `%` and `_` are literal in a search: a value key may well contain them. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

export interface EntityFilter {
  status?: 'active' | 'exhausted' | undefined;
  search?: string | undefined;
}

export async function listUsageLimitEntities(
  db: Db,
  policyId: string,
  filter: EntityFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: UsageLimitEntityRow[] }> {
  const conditions: SQL[] = [eq(usageLimitEntities.policyId, policyId)];
  if (filter.status) conditions.push(eq(usageLimitEntities.status, filter.status));
  if (filter.search) conditions.push(ilike(usageLimitEntities.valueKey, likePattern(filter.search)));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(usageLimitEntities).where(where),
    db.select().from(usageLimitEntities).where(where).orderBy(asc(usageLimitEntities.valueKey)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** At most `limit` entities of a policy (include_usage): the map would otherwise grow with every user ever seen. */
export async function usageLimitEntitiesOf(db: Db, policyId: string, limit: number): Promise<UsageLimitEntityRow[]> {
  return db.select().from(usageLimitEntities).where(eq(usageLimitEntities.policyId, policyId)).orderBy(asc(usageLimitEntities.valueKey)).limit(limit);
}

export async function findUsageLimitEntity(db: Db, policyId: string, entityId: string): Promise<UsageLimitEntityRow | undefined> {
  const rows = await db
    .select()
    .from(usageLimitEntities)
    .where(and(eq(usageLimitEntities.policyId, policyId), eq(usageLimitEntities.id, entityId)))
    .limit(1);
  return rows[0];
}

export async function findUsageLimitEntityByValue(db: Db, policyId: string, valueKey: string): Promise<UsageLimitEntityRow | undefined> {
  const rows = await db
    .select()
    .from(usageLimitEntities)
    .where(and(eq(usageLimitEntities.policyId, policyId), eq(usageLimitEntities.valueKey, valueKey)))
    .limit(1);
  return rows[0];
}

/** Zeroes an entity's usage and its alerts (the live counter is reset by the caller after the commit). */
export async function resetUsageLimitEntity(db: Db, policyId: string, valueKey: string): Promise<void> {
  await db
    .update(usageLimitEntities)
    .set({ currentUsage: '0', status: 'active', thresholdAlertedAt: null, exhaustedAlertedAt: null, updatedAt: new Date() })
    .where(and(eq(usageLimitEntities.policyId, policyId), eq(usageLimitEntities.valueKey, valueKey)));
}

/** After the limit changed: each entity is exhausted when its stored usage reaches the new limit, active otherwise. */
export async function restatusUsageLimitEntities(db: Db, policyId: string, creditLimit: string): Promise<void> {
  await db
    .update(usageLimitEntities)
    .set({
      status: sql`case when ${usageLimitEntities.currentUsage} >= ${creditLimit}::numeric then 'exhausted' else 'active' end`,
      exhaustedAlertedAt: sql`case when ${usageLimitEntities.currentUsage} >= ${creditLimit}::numeric then ${usageLimitEntities.exhaustedAlertedAt} else null end`,
      updatedAt: new Date(),
    })
    .where(eq(usageLimitEntities.policyId, policyId));
}

/** One entity's state as the live counters have it, for the batched writer. */
export interface EntityUsage {
  policyId: string;
  valueKey: string;
  /** decimal text (USD or tokens) */
  currentUsage: string;
  status: 'active' | 'exhausted';
  periodStart: Date | null;
  thresholdAlertedAt: Date | null;
  exhaustedAlertedAt: Date | null;
}

/**
 * Stores many entities in one statement (the rows as one JSON parameter). The values are absolute, read from the
 * live counters, so two nodes writing the same entity write the same thing. A policy that no longer exists (its
 * organisation deleted) is skipped rather than failing the batch.
 */
export async function saveUsageLimitEntities(db: Db, entities: readonly EntityUsage[]): Promise<void> {
  if (entities.length === 0) return;
  const records = entities.map((entity) => ({
    policy_id: entity.policyId,
    value_key: entity.valueKey,
    current_usage: entity.currentUsage,
    status: entity.status,
    period_start: entity.periodStart?.toISOString() ?? null,
    threshold_alerted_at: entity.thresholdAlertedAt?.toISOString() ?? null,
    exhausted_alerted_at: entity.exhaustedAlertedAt?.toISOString() ?? null,
  }));
  await db.execute(sql`
    insert into ${usageLimitEntities} (policy_id, value_key, current_usage, status, period_start, threshold_alerted_at, exhausted_alerted_at)
    select r.policy_id, r.value_key, r.current_usage, r.status, r.period_start, r.threshold_alerted_at, r.exhausted_alerted_at
    from json_to_recordset(${JSON.stringify(records)}::json) as r(
      policy_id uuid, value_key text, current_usage numeric, status text, period_start timestamptz,
      threshold_alerted_at timestamptz, exhausted_alerted_at timestamptz)
    where exists (select 1 from ${usageLimitPolicies} p where p.id = r.policy_id)
    on conflict (policy_id, value_key) do update set
      current_usage = excluded.current_usage,
      status = excluded.status,
      period_start = excluded.period_start,
      -- an alert keeps the time it was first recorded in its window; a reset or a new window clears it
      threshold_alerted_at = case
        when excluded.threshold_alerted_at is null or ${usageLimitEntities.periodStart} is distinct from excluded.period_start
        then excluded.threshold_alerted_at
        else coalesce(${usageLimitEntities.thresholdAlertedAt}, excluded.threshold_alerted_at) end,
      exhausted_alerted_at = case
        when excluded.exhausted_alerted_at is null or ${usageLimitEntities.periodStart} is distinct from excluded.period_start
        then excluded.exhausted_alerted_at
        else coalesce(${usageLimitEntities.exhaustedAlertedAt}, excluded.exhausted_alerted_at) end,
      updated_at = now()`);
}

/**
 * The inline `usage_limits` of an API key and of a workspace, as stored (the budgets step holds them in process).
 * Here rather than in their groups' repositories: only the budgets read them on the hot path.
 */
export async function apiKeyUsageLimits(db: Db, apiKeyId: string): Promise<unknown> {
  const rows = await db.select({ usageLimits: apiKeys.usageLimits }).from(apiKeys).where(eq(apiKeys.id, apiKeyId)).limit(1);
  return rows[0]?.usageLimits ?? null;
}

export async function workspaceUsageLimits(db: Db, workspaceId: string): Promise<unknown> {
  const rows = await db.select({ usageLimits: workspaces.usageLimits }).from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  return rows[0]?.usageLimits ?? null;
}
