import { and, asc, count, eq, gt, lte, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { userInvites } from '../schema.ts';

export type InviteRow = typeof userInvites.$inferSelect;
export type InviteStatus = 'pending' | 'cancelled' | 'accepted' | 'expired';

export function inviteStatus(row: InviteRow, now: Date): InviteStatus {
  if (row.status === 'pending' && row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return row.status as InviteStatus;
}

export async function insertInvite(db: Db, values: typeof userInvites.$inferInsert): Promise<InviteRow> {
  const rows = await db.insert(userInvites).values(values).returning();
  return rows[0]!;
}

export async function getInvite(db: Db, organisationId: string, id: string): Promise<InviteRow | undefined> {
  const rows = await db.select().from(userInvites).where(and(eq(userInvites.organisationId, organisationId), eq(userInvites.id, id))).limit(1);
  return rows[0];
}

/** Locks the invite row for the rest of the transaction, so it is accepted at most once. */
export async function lockInviteByToken(db: Db, tokenHash: string): Promise<InviteRow | undefined> {
  const rows = await db.select().from(userInvites).where(eq(userInvites.tokenHash, tokenHash)).limit(1).for('update');
  return rows[0];
}

export async function pendingInviteFor(db: Db, organisationId: string, email: string, now: Date): Promise<InviteRow | undefined> {
  const rows = await db
    .select()
    .from(userInvites)
    .where(and(eq(userInvites.organisationId, organisationId), eq(userInvites.email, email), eq(userInvites.status, 'pending'), gt(userInvites.expiresAt, now)))
    .limit(1);
  return rows[0];
}

export async function updateInvite(db: Db, id: string, values: Partial<typeof userInvites.$inferInsert>): Promise<void> {
  await db.update(userInvites).set(values).where(eq(userInvites.id, id));
}

export async function listInvites(
  db: Db,
  filter: { organisationId: string; role?: string | undefined; email?: string | undefined; status?: InviteStatus | undefined },
  page: { offset: number; limit: number },
  now: Date,
): Promise<{ total: number; rows: InviteRow[] }> {
  const conditions: Array<SQL | undefined> = [eq(userInvites.organisationId, filter.organisationId)];
  if (filter.role) conditions.push(eq(userInvites.role, filter.role));
  if (filter.email) conditions.push(eq(userInvites.email, filter.email));
  if (filter.status === 'expired') conditions.push(eq(userInvites.status, 'pending'), lte(userInvites.expiresAt, now));
  else if (filter.status === 'pending') conditions.push(eq(userInvites.status, 'pending'), gt(userInvites.expiresAt, now));
  else if (filter.status) conditions.push(eq(userInvites.status, filter.status));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(userInvites).where(where),
    db.select().from(userInvites).where(where).orderBy(asc(userInvites.createdAt), asc(userInvites.id)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}
