/**
 * GET /audit-logs: the organisation's audit records, newest first, filtered and paged. Admin keys only (scope
 * `audit_logs.list`). Records are append-only: no route changes or deletes them (405).
 */
import type { FastifyInstance } from 'fastify';
import { requireAdminKey } from '../../../auth/authorize.ts';
import { GatewayError, invalidParam, notFound } from '../../../core/errors.ts';
import { listAuditLogs, type AuditLogRow } from '../../../storage/repositories/audit-logs.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalInteger, optionalString, pageParams } from '../params.ts';

function requiredTime(query: unknown, name: string): Date {
  const value = optionalString(query, name, 64);
  if (value === undefined) throw invalidParam(name, `${name} is required (ISO-8601).`, 'missing_field');
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) throw invalidParam(name, `${name} must be an ISO-8601 date-time.`);
  return date;
}

function view(row: AuditLogRow) {
  return {
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    method: row.method,
    uri: row.uri,
    request_id: row.requestId,
    request_body: row.requestBody,
    query_params: row.queryParams,
    request_headers: row.requestHeaders,
    user_id: row.userId,
    api_key_id: row.apiKeyId,
    user_type: row.userType,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    response_status_code: row.responseStatusCode,
    outcome: row.outcome,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    action: row.action,
    client_ip: row.clientIp,
    country: null,
  };
}

export function registerAuditLogRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/v1/audit-logs', adminRoute(deps, { action: 'audit_logs.list', resourceType: 'audit_log', scope: 'audit_logs.list', mutation: false }, async (ctx) => {
    requireAdminKey(ctx.principal, 'read the audit log');
    const query = ctx.request.query;
    const startTime = requiredTime(query, 'start_time');
    const endTime = requiredTime(query, 'end_time');
    if (endTime < startTime) throw invalidParam('end_time', 'end_time must not be before start_time.');
    const organisationId = optionalString(query, 'organisation_id', 64);
    if (organisationId === undefined) throw invalidParam('organisation_id', 'organisation_id is required.', 'missing_field');
    if (organisationId !== ctx.principal.organisationId) throw notFound(`Organisation "${organisationId}" not found.`);
    const { total, rows } = await listAuditLogs(
      ctx.db,
      {
        organisationId,
        startTime,
        endTime,
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
    );
    return { body: listBody(total, rows.map(view)) };
  }));

  const readOnly = async () => {
    throw new GatewayError(405, 'invalid_request_error', 'Audit records cannot be changed or deleted.', { code: 'method_not_allowed' });
  };
  app.route({ method: ['PUT', 'PATCH', 'DELETE', 'POST'], url: '/v1/audit-logs', handler: readOnly });
  app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'], url: '/v1/audit-logs/*', handler: readOnly });
}
