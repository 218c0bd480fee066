/**
 * GET /audit-logs: the organisation's audit records, newest first, filtered and paged. Admin keys only (scope
 * `audit_logs.list`); the defaults (organisation, time window) are the use case's. Records are append-only: no
 * route changes or deletes them (405).
 */
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalidParam } from '../../../core/errors.ts';
import { listAuditRecords } from '../../../domain/audit/list-audit-logs.ts';
import { auditLogView } from '../../../domain/audit/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalInteger, optionalString, pageParams } from '../params.ts';

function optionalTime(query: unknown, name: string): Date | undefined {
  const value = optionalString(query, name, 64);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) throw invalidParam(name, `${name} must be an ISO-8601 date-time.`);
  return date;
}

export function registerAuditLogRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/v1/audit-logs', adminRoute(deps, { action: 'audit_logs.list', resourceType: 'audit_log', scope: 'audit_logs.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const { total, rows } = await listAuditRecords(
      ctx.db,
      ctx.principal,
      {
        organisationId: optionalString(query, 'organisation_id', 64),
        startTime: optionalTime(query, 'start_time'),
        endTime: optionalTime(query, 'end_time'),
        method: optionalEnum(query, 'method', ['POST', 'PUT', 'DELETE', 'GET'] as const),
        uri: optionalString(query, 'uri', 2048),
        requestId: optionalString(query, 'request_id'),
        userId: optionalString(query, 'user_id'),
        userType: optionalEnum(query, 'user_type', ['user', 'api_key'] as const),
        workspaceId: optionalString(query, 'workspace_id'),
        responseStatusCode: optionalInteger(query, 'response_status_code', 100, 599),
        resourceType: optionalString(query, 'resource_type'),
        action: optionalString(query, 'action'),
        clientIp: optionalString(query, 'client_ip'),
      },
      pageParams(query, { defaultSize: 50, maxSize: 100 }),
      deps.now(),
    );
    return { body: listBody(total, rows.map(auditLogView)) };
  }));

  const readOnly = async () => {
    throw new GatewayError(405, 'invalid_request_error', 'Audit records cannot be changed or deleted.', { code: 'method_not_allowed' });
  };
  app.route({ method: ['PUT', 'PATCH', 'DELETE', 'POST'], url: '/v1/audit-logs', handler: readOnly });
  app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'], url: '/v1/audit-logs/*', handler: readOnly });
}
