import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { auditLogs } from '../schema.ts';

export type AuditLogRow = typeof auditLogs.$inferSelect;
export type NewAuditLogRow = typeof auditLogs.$inferInsert;

export async function insertAuditLog(db: Db, values: NewAuditLogRow): Promise<void> {
  await db.insert(auditLogs).values(values);
}

export interface AuditLogFilter {
  organisationId: string;
  startTime: Date;
  endTime: Date;
  method?: string;
  uri?: string;
  requestId?: string;
  userId?: string;
  userType?: string;
  workspaceId?: string;
  responseStatusCode?: number;
  resourceType?: string;
  action?: string;
  clientIp?: string;
}

export async function listAuditLogs(
  db: Db,
  filter: AuditLogFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: AuditLogRow[] }> {
  const conditions: SQL[] = [
    eq(auditLogs.organisationId, filter.organisationId),
    gte(auditLogs.timestamp, filter.startTime),
    lte(auditLogs.timestamp, filter.endTime),
  ];
  if (filter.method) conditions.push(eq(auditLogs.method, filter.method));
  if (filter.uri) conditions.push(eq(auditLogs.uri, filter.uri));
  if (filter.requestId) conditions.push(eq(auditLogs.requestId, filter.requestId));
  if (filter.userId) conditions.push(eq(auditLogs.userId, filter.userId));
  if (filter.userType) conditions.push(eq(auditLogs.userType, filter.userType));
  if (filter.workspaceId) conditions.push(eq(auditLogs.workspaceId, filter.workspaceId));
  if (filter.responseStatusCode !== undefined) conditions.push(eq(auditLogs.responseStatusCode, filter.responseStatusCode));
  if (filter.resourceType) conditions.push(eq(auditLogs.resourceType, filter.resourceType));
  if (filter.action) conditions.push(eq(auditLogs.action, filter.action));
  if (filter.clientIp) conditions.push(eq(auditLogs.clientIp, filter.clientIp));
  const where = and(...conditions);
  const [totals, rows] = await Promise.all([
    db.select({ value: count() }).from(auditLogs).where(where),
    db.select().from(auditLogs).where(where).orderBy(desc(auditLogs.timestamp)).offset(page.offset).limit(page.limit),
  ]);
  return { total: totals[0]?.value ?? 0, rows };
}
