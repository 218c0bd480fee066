/** Guardrail rows. Only active guardrails are found, listed or changed; an archived one is kept for the record. */
import { and, asc, count, eq, isNull, or, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { guardrails } from '../schema.ts';

export type GuardrailRow = typeof guardrails.$inferSelect;
export type NewGuardrailRow = typeof guardrails.$inferInsert;

const ACTIVE = eq(guardrails.status, 'active');

/** An active guardrail of the organisation by id or slug. */
export async function findGuardrail(db: Db, organisationId: string, idOrSlug: string): Promise<GuardrailRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(guardrails.id, idOrSlug.toLowerCase()) : eq(guardrails.slug, idOrSlug);
  const rows = await db.select().from(guardrails).where(and(eq(guardrails.organisationId, organisationId), ACTIVE, match)).limit(1);
  return rows[0];
}

export async function guardrailSlugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: guardrails.id })
    .from(guardrails)
    .where(and(eq(guardrails.organisationId, organisationId), ACTIVE, eq(guardrails.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertGuardrail(db: Db, values: NewGuardrailRow): Promise<GuardrailRow> {
  const rows = await db.insert(guardrails).values(values).returning();
  return rows[0]!;
}

export interface GuardrailListFilter {
  organisationId: string;
  /** only this workspace's guardrails */
  workspaceId?: string | undefined;
  /** this workspace's guardrails and the organisation-wide ones (what a workspace key sees) */
  visibleToWorkspace?: string | undefined;
}

export async function listGuardrails(
  db: Db,
  filter: GuardrailListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: GuardrailRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(guardrails.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceId) conditions.push(eq(guardrails.workspaceId, filter.workspaceId));
  if (filter.visibleToWorkspace) {
    conditions.push(or(eq(guardrails.workspaceId, filter.visibleToWorkspace), isNull(guardrails.workspaceId)));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(guardrails).where(where),
    db.select().from(guardrails).where(where).orderBy(asc(guardrails.createdAt), asc(guardrails.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Changes an active guardrail; undefined when it is gone (archived concurrently). */
export async function updateGuardrailRow(db: Db, id: string, values: Partial<NewGuardrailRow>): Promise<GuardrailRow | undefined> {
  const rows = await db
    .update(guardrails)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(guardrails.id, id), ACTIVE))
    .returning();
  return rows[0];
}
