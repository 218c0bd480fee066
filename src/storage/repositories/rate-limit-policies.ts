/**
 * Rate limits policy rows (§3.19). A deleted policy is archived, not removed: it stays for the record, is listed
 * and read only when asked for by status, and is never changed again.
 */
import { and, asc, count, eq, isNull, or, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { rateLimitPolicies } from '../schema.ts';

export type RateLimitPolicyRow = typeof rateLimitPolicies.$inferSelect;
export type NewRateLimitPolicyRow = typeof rateLimitPolicies.$inferInsert;
export type RateLimitPolicyStatus = 'active' | 'archived';

/** The policy of the organisation with this id, in that status. */
export async function findRateLimitPolicy(
  db: Db,
  organisationId: string,
  id: string,
  status: RateLimitPolicyStatus = 'active',
): Promise<RateLimitPolicyRow | undefined> {
  const rows = await db
    .select()
    .from(rateLimitPolicies)
    .where(and(eq(rateLimitPolicies.organisationId, organisationId), eq(rateLimitPolicies.id, id), eq(rateLimitPolicies.status, status)))
    .limit(1);
  return rows[0];
}

export async function insertRateLimitPolicy(db: Db, values: NewRateLimitPolicyRow): Promise<RateLimitPolicyRow> {
  const rows = await db.insert(rateLimitPolicies).values(values).returning();
  return rows[0]!;
}

/** Changes an active policy; undefined when it is gone (archived concurrently). */
export async function updateRateLimitPolicyRow(
  db: Db,
  id: string,
  values: Partial<Pick<NewRateLimitPolicyRow, 'name' | 'unit' | 'value' | 'onStoreFailure' | 'status'>>,
): Promise<RateLimitPolicyRow | undefined> {
  const rows = await db
    .update(rateLimitPolicies)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(rateLimitPolicies.id, id), eq(rateLimitPolicies.status, 'active')))
    .returning();
  return rows[0];
}

export interface RateLimitPolicyFilter {
  organisationId: string;
  status: RateLimitPolicyStatus;
  /** only this workspace's policies */
  workspaceId?: string | undefined;
  /** this workspace's policies and the organisation-wide ones (what a workspace key sees) */
  visibleToWorkspace?: string | undefined;
  type?: string | undefined;
  unit?: string | undefined;
}

export async function listRateLimitPolicies(
  db: Db,
  filter: RateLimitPolicyFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: RateLimitPolicyRow[] }> {
  const conditions: Array<SQL | undefined> = [
    eq(rateLimitPolicies.organisationId, filter.organisationId),
    eq(rateLimitPolicies.status, filter.status),
  ];
  if (filter.workspaceId) conditions.push(eq(rateLimitPolicies.workspaceId, filter.workspaceId));
  if (filter.visibleToWorkspace) {
    conditions.push(or(eq(rateLimitPolicies.workspaceId, filter.visibleToWorkspace), isNull(rateLimitPolicies.workspaceId)));
  }
  if (filter.type) conditions.push(eq(rateLimitPolicies.type, filter.type));
  if (filter.unit) conditions.push(eq(rateLimitPolicies.unit, filter.unit));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(rateLimitPolicies).where(where),
    db.select().from(rateLimitPolicies).where(where).orderBy(asc(rateLimitPolicies.createdAt), asc(rateLimitPolicies.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Every active policy of the organisation: what the request path holds in process. */
export async function activeRateLimitPolicies(db: Db, organisationId: string): Promise<RateLimitPolicyRow[]> {
  return db
    .select()
    .from(rateLimitPolicies)
    .where(and(eq(rateLimitPolicies.organisationId, organisationId), eq(rateLimitPolicies.status, 'active')))
    .orderBy(asc(rateLimitPolicies.createdAt), asc(rateLimitPolicies.id));
}
