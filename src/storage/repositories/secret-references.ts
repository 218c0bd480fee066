/**
 * Secret reference rows. auth_config (and a `sealed` reference's value) is one sealed JSON text in
 * `sealed_auth_config`: this module never sees it opened. A delete removes the row; the domain refuses it while an
 * integration or provider maps a secret to it.
 */
import { and, asc, count, eq, ilike, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { integrations, providers, secretReferences } from '../schema.ts';

export type SecretReferenceRow = typeof secretReferences.$inferSelect;
export type NewSecretReferenceRow = typeof secretReferences.$inferInsert;

const ACTIVE = eq(secretReferences.status, 'active');

function byIdOrSlug(idOrSlug: string): SQL {
  return isUuid(idOrSlug) ? eq(secretReferences.id, idOrSlug.toLowerCase()) : eq(secretReferences.slug, idOrSlug);
}

export async function findSecretReference(db: Db, organisationId: string, idOrSlug: string): Promise<SecretReferenceRow | undefined> {
  const rows = await db
    .select()
    .from(secretReferences)
    .where(and(eq(secretReferences.organisationId, organisationId), ACTIVE, byIdOrSlug(idOrSlug)))
    .limit(1);
  return rows[0];
}

export async function secretReferenceSlugTaken(db: Db, organisationId: string, slug: string): Promise<boolean> {
  const rows = await db
    .select({ id: secretReferences.id })
    .from(secretReferences)
    .where(and(eq(secretReferences.organisationId, organisationId), eq(secretReferences.slug, slug)))
    .limit(1);
  return rows.length > 0;
}

export async function insertSecretReference(db: Db, values: NewSecretReferenceRow): Promise<SecretReferenceRow> {
  const rows = await db.insert(secretReferences).values(values).returning();
  return rows[0]!;
}

export interface SecretReferenceListFilter {
  organisationId: string;
  managerType?: string | undefined;
  /** every pair must match: a value, or any value when undefined (the tag is present) */
  tags?: ReadonlyArray<readonly [string, string | undefined]> | undefined;
  /** a substring of the name or slug, case-insensitive */
  search?: string | undefined;
  /** only the references this workspace may use (what a workspace key sees) */
  usableByWorkspace?: string | undefined;
}

/** `%`, `_` and `\` are LIKE's own characters: a search for them finds them literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** allow_all_workspaces, or the workspace is listed */
export function usableBy(workspaceId: string): SQL {
  return or(
    eq(secretReferences.allowAllWorkspaces, true),
    sql`${secretReferences.allowedWorkspaces} @> ${JSON.stringify([workspaceId])}::jsonb`,
  )!;
}

export async function listSecretReferences(
  db: Db,
  filter: SecretReferenceListFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: SecretReferenceRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(secretReferences.organisationId, filter.organisationId), ACTIVE];
  if (filter.managerType) conditions.push(eq(secretReferences.managerType, filter.managerType));
  for (const [key, value] of filter.tags ?? []) {
    conditions.push(
      value === undefined
        ? isNotNull(sql`${secretReferences.tags} -> ${key}`)
        : sql`${secretReferences.tags} @> ${JSON.stringify({ [key]: value })}::jsonb`,
    );
  }
  if (filter.search) {
    const pattern = `%${likeLiteral(filter.search)}%`;
    conditions.push(or(ilike(secretReferences.name, pattern), ilike(secretReferences.slug, pattern)));
  }
  if (filter.usableByWorkspace) conditions.push(usableBy(filter.usableByWorkspace));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(secretReferences).where(where),
    db
      .select()
      .from(secretReferences)
      .where(where)
      .orderBy(asc(secretReferences.createdAt), asc(secretReferences.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}

/** Changes a reference; undefined when it is gone (deleted concurrently). */
export async function updateSecretReferenceRow(
  db: Db,
  id: string,
  values: Partial<NewSecretReferenceRow>,
): Promise<SecretReferenceRow | undefined> {
  const rows = await db
    .update(secretReferences)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(secretReferences.id, id), ACTIVE))
    .returning();
  return rows[0];
}

export async function deleteSecretReferenceRow(db: Db, id: string): Promise<boolean> {
  const rows = await db.delete(secretReferences).where(eq(secretReferences.id, id)).returning({ id: secretReferences.id });
  return rows.length > 0;
}

/**
 * The slugs of the active integrations and providers whose secret_mappings name this reference (by id or slug),
 * at most `limit` of each.
 */
export async function secretReferenceUsers(
  db: Db,
  reference: { organisationId: string; id: string; slug: string },
  limit = 5,
): Promise<{ integrations: string[]; providers: string[] }> {
  const named = (column: typeof integrations.secretMappings | typeof providers.secretMappings) =>
    or(
      sql`${column} @> ${JSON.stringify([{ secret_reference_id: reference.id }])}::jsonb`,
      sql`${column} @> ${JSON.stringify([{ secret_reference_id: reference.slug }])}::jsonb`,
    );
  const [integrationRows, providerRows] = await Promise.all([
    db
      .select({ slug: integrations.slug })
      .from(integrations)
      .where(and(eq(integrations.organisationId, reference.organisationId), eq(integrations.status, 'active'), named(integrations.secretMappings)))
      .limit(limit),
    db
      .select({ slug: providers.slug })
      .from(providers)
      .where(and(eq(providers.organisationId, reference.organisationId), eq(providers.status, 'active'), named(providers.secretMappings)))
      .limit(limit),
  ]);
  return { integrations: integrationRows.map((row) => row.slug), providers: providerRows.map((row) => row.slug) };
}
