/**
 * Prompt rows and their immutable versions. Only active prompts are found, listed or changed; a deleted one is
 * archived and kept for the record (its slug is free again). Versions never change except for their label.
 */
import { and, asc, count, desc, eq, ilike, isNull, max, or, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../database.ts';
import { promptCollections, promptLabels, prompts, promptVersions } from '../schema/prompts.ts';

export type PromptRow = typeof prompts.$inferSelect;
export type NewPromptRow = typeof prompts.$inferInsert;
export type PromptVersionRow = typeof promptVersions.$inferSelect;
export type NewPromptVersionRow = typeof promptVersions.$inferInsert;
export type PromptLabelRow = typeof promptLabels.$inferSelect;

const ACTIVE = eq(prompts.status, 'active');

/**
 * An active prompt of the organisation by id, or by slug. A slug is unique per workspace only: the one of
 * `preferredWorkspaceId` wins, then the oldest.
 */
export async function findPrompt(db: Db, organisationId: string, idOrSlug: string, preferredWorkspaceId: string): Promise<PromptRow | undefined> {
  const match = isUuid(idOrSlug) ? eq(prompts.id, idOrSlug.toLowerCase()) : eq(prompts.slug, idOrSlug);
  const rows = await db
    .select()
    .from(prompts)
    .where(and(eq(prompts.organisationId, organisationId), ACTIVE, match))
    .orderBy(desc(sql`${prompts.workspaceId} = ${preferredWorkspaceId}`), asc(prompts.createdAt), asc(prompts.id))
    .limit(1);
  return rows[0];
}

export async function promptSlugTaken(db: Db, workspaceId: string, slug: string): Promise<boolean> {
  const rows = await db.select({ id: prompts.id }).from(prompts).where(and(eq(prompts.workspaceId, workspaceId), ACTIVE, eq(prompts.slug, slug))).limit(1);
  return rows.length > 0;
}

/** The workspace of an active collection of the organisation, by id. */
export async function collectionWorkspaceId(db: Db, organisationId: string, collectionId: string): Promise<string | undefined> {
  const rows = await db
    .select({ workspaceId: promptCollections.workspaceId })
    .from(promptCollections)
    .where(and(eq(promptCollections.organisationId, organisationId), eq(promptCollections.id, collectionId), eq(promptCollections.status, 'active')))
    .limit(1);
  return rows[0]?.workspaceId;
}

export async function insertPrompt(db: Db, values: NewPromptRow): Promise<PromptRow> {
  const rows = await db.insert(prompts).values(values).returning();
  return rows[0]!;
}

export async function insertPromptVersion(db: Db, values: NewPromptVersionRow): Promise<PromptVersionRow> {
  const rows = await db.insert(promptVersions).values(values).returning();
  return rows[0]!;
}

/** Changes an active prompt; undefined when it is gone (archived concurrently). */
export async function updatePromptRow(db: Db, id: string, values: Partial<NewPromptRow>): Promise<PromptRow | undefined> {
  const rows = await db
    .update(prompts)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(prompts.id, id), ACTIVE))
    .returning();
  return rows[0];
}

/** The active prompt, locked: versions are numbered under it, so two concurrent updates cannot take one number. */
export async function lockPrompt(db: Db, id: string): Promise<PromptRow | undefined> {
  const rows = await db.select().from(prompts).where(and(eq(prompts.id, id), ACTIVE)).for('update');
  return rows[0];
}

export async function latestVersionNumber(db: Db, promptId: string): Promise<number> {
  const rows = await db.select({ value: max(promptVersions.version) }).from(promptVersions).where(eq(promptVersions.promptId, promptId));
  return rows[0]?.value ?? 0;
}

export type VersionSelector = { version: number } | { id: string } | { labelId: string } | { latest: true };

export async function findPromptVersion(db: Db, promptId: string, selector: VersionSelector): Promise<PromptVersionRow | undefined> {
  let match: SQL;
  if ('version' in selector) match = eq(promptVersions.version, selector.version);
  else if ('id' in selector) match = eq(promptVersions.id, selector.id);
  else if ('labelId' in selector) match = eq(promptVersions.labelId, selector.labelId);
  else match = sql`true`;
  const rows = await db
    .select()
    .from(promptVersions)
    .where(and(eq(promptVersions.promptId, promptId), match))
    .orderBy(desc(promptVersions.version))
    .limit(1);
  return rows[0];
}

export async function listPromptVersions(db: Db, promptId: string): Promise<PromptVersionRow[]> {
  return db.select().from(promptVersions).where(eq(promptVersions.promptId, promptId)).orderBy(desc(promptVersions.version));
}

/**
 * Moves a label onto one version of a prompt: it leaves the prompt's other version first, then lands, so the
 * unique index (one version per label per prompt) holds at every statement. Run inside the caller's transaction.
 */
export async function moveVersionLabel(db: Db, promptId: string, versionId: string, labelId: string | null): Promise<void> {
  if (labelId !== null) {
    await db.update(promptVersions).set({ labelId: null }).where(and(eq(promptVersions.promptId, promptId), eq(promptVersions.labelId, labelId)));
  }
  await db.update(promptVersions).set({ labelId }).where(and(eq(promptVersions.promptId, promptId), eq(promptVersions.id, versionId)));
}

/** An active label a prompt of `workspaceId` may carry: one of that workspace, or an organisation-wide one. */
export async function findUsableLabel(db: Db, organisationId: string, workspaceId: string, idOrName: string): Promise<PromptLabelRow | undefined> {
  const match = isUuid(idOrName) ? eq(promptLabels.id, idOrName.toLowerCase()) : eq(promptLabels.name, idOrName);
  const rows = await db
    .select()
    .from(promptLabels)
    .where(and(
      eq(promptLabels.organisationId, organisationId),
      eq(promptLabels.status, 'active'),
      or(eq(promptLabels.workspaceId, workspaceId), isNull(promptLabels.workspaceId)),
      match,
    ))
    // a workspace's own label wins over an organisation-wide one of the same name
    .orderBy(sql`${promptLabels.workspaceId} is null`)
    .limit(1);
  return rows[0];
}

export interface PromptListFilter {
  organisationId: string;
  /** only these workspaces' prompts; undefined: every workspace of the organisation */
  workspaceIds?: readonly string[] | undefined;
  collectionId?: string | undefined;
  /** a case-insensitive substring of the name or slug */
  search?: string | undefined;
}

export interface PromptListRow extends PromptRow {
  /** the default version's model */
  model: string | null;
}

export async function listPrompts(db: Db, filter: PromptListFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: PromptListRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(prompts.organisationId, filter.organisationId), ACTIVE];
  if (filter.workspaceIds) {
    if (filter.workspaceIds.length === 0) return { total: 0, rows: [] };
    conditions.push(or(...filter.workspaceIds.map((id) => eq(prompts.workspaceId, id))));
  }
  if (filter.collectionId) conditions.push(eq(prompts.collectionId, filter.collectionId));
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    conditions.push(or(ilike(prompts.name, pattern), ilike(prompts.slug, pattern)));
  }
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(prompts).where(where),
    db
      .select({ prompt: prompts, model: promptVersions.model })
      .from(prompts)
      .leftJoin(promptVersions, and(eq(promptVersions.promptId, prompts.id), eq(promptVersions.version, prompts.defaultVersion)))
      .where(where)
      .orderBy(asc(prompts.createdAt), asc(prompts.id))
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows: rows.map((row) => ({ ...row.prompt, model: row.model ?? null })) };
}

/** A version's description is the one thing besides its label that may change: it describes, it is not content. */
export async function setVersionDescription(db: Db, versionId: string, description: string | null): Promise<void> {
  await db.update(promptVersions).set({ description }).where(eq(promptVersions.id, versionId));
}
