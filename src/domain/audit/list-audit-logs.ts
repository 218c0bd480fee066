/**
 * GET /audit-logs: the organisation's audit records, newest first (admin keys of owners and admins). Every query
 * parameter is optional, although the reference marks three required (the seed wins: a bare call works):
 * - the organisation defaults to the caller's (another one is a 404: no caller sees two organisations);
 * - the window defaults to the 30 days before `end_time`, and `end_time` to now, so no bounds means the last 30
 *   days and `start_time` alone means from then until now.
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { listAuditLogs } from '../../storage/repositories/audit-logs.ts';

export const DEFAULT_AUDIT_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface AuditLogQuery {
  organisationId?: string | undefined;
  startTime?: Date | undefined;
  endTime?: Date | undefined;
  method?: string | undefined;
  uri?: string | undefined;
  requestId?: string | undefined;
  userId?: string | undefined;
  userType?: string | undefined;
  workspaceId?: string | undefined;
  responseStatusCode?: number | undefined;
  resourceType?: string | undefined;
  action?: string | undefined;
  clientIp?: string | undefined;
}

/** The window a query covers: both bounds given, one of them, or none. */
export function auditWindow(query: Pick<AuditLogQuery, 'startTime' | 'endTime'>, now: Date): { startTime: Date; endTime: Date } {
  const { startTime, endTime } = query;
  if (startTime && endTime && endTime < startTime) throw invalidParam('end_time', 'end_time must not be before start_time.');
  const end = endTime ?? now;
  return { startTime: startTime ?? new Date(end.getTime() - DEFAULT_AUDIT_WINDOW_MS), endTime: end };
}

export async function listAuditRecords(db: Db, principal: Principal, query: AuditLogQuery, page: { offset: number; limit: number }, now: Date) {
  requireAdminKey(principal, 'read the audit log');
  const organisationId = query.organisationId?.toLowerCase() ?? principal.organisationId;
  if (organisationId !== principal.organisationId) throw notFound(`Organisation "${query.organisationId}" not found.`);
  return listAuditLogs(db, { ...query, organisationId, ...auditWindow(query, now) }, page);
}
