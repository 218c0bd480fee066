/**
 * The audit log (src/http/admin/audit-logs/routes.ts): one read route, and routes that answer 405 to every
 * attempt to change a record, so such a call never reaches the pass-through.
 */
import { listRef } from '../components.ts';
import { pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import { NO_KEY, errors } from '../responses.ts';
import type { Method, Operation, PathItem, Paths } from '../types.ts';
import { adminOperation } from './operation.ts';

const TAG = 'audit-logs';

const query = [
  queryParameter('start_time', 'from this time (ISO-8601); default: 30 days before end_time', { type: 'string', format: 'date-time' }),
  queryParameter('end_time', 'up to this time (ISO-8601), not before start_time; default: now', { type: 'string', format: 'date-time' }),
  queryParameter('organisation_id', 'the caller\'s organisation, the default (another is a 404)', { type: 'string', minLength: 1, maxLength: 64 }),
  queryParameter('method', 'HTTP method', { type: 'string', enum: ['POST', 'PUT', 'DELETE', 'GET'] }),
  queryParameter('uri', 'request path, without the query string', { type: 'string', minLength: 1, maxLength: 2048 }),
  queryParameter('request_id', 'the request id'),
  queryParameter('user_id', 'the acting user'),
  queryParameter('user_type', 'who acted', { type: 'string', enum: ['user', 'api_key'] }),
  queryParameter('workspace_id', 'the workspace concerned'),
  queryParameter('response_status_code', 'the status answered', { type: 'integer', minimum: 100, maximum: 599 }),
  queryParameter('resource_type', 'e.g. api_key, workspace, config'),
  queryParameter('action', 'e.g. api_keys.create'),
  queryParameter('client_ip', 'the caller\'s address'),
  ...pageParameters({ defaultSize: 50, maxSize: 100 }),
];

function readOnly(operationId: string, parameters: Operation['parameters'] = []): Operation {
  return {
    operationId,
    summary: 'Refused: audit records cannot be changed or deleted',
    tags: [TAG],
    ...(parameters.length ? { parameters } : {}),
    responses: errors({ 401: NO_KEY, 405: 'always: audit records are append-only' }),
  };
}

function refusing(methods: readonly Method[], prefix: string, parameters?: Operation['parameters']): PathItem {
  return Object.fromEntries(methods.map((method) => [method, readOnly(`${prefix}${method[0]!.toUpperCase()}${method.slice(1)}`, parameters)]));
}

export function auditLogPaths(): Paths {
  return {
    '/audit-logs': {
      get: adminOperation({
        operationId: 'listAuditLogs',
        summary: 'List audit records',
        tag: TAG,
        scope: 'audit_logs.list',
        description: 'Newest first, filtered and paged. Admin keys only.',
        parameters: query,
        answer: { description: 'the records', schema: listRef('AuditLogRecord', 'audit records') },
        errors: { 404: 'organisation_id is not the caller\'s organisation' },
      }),
      ...refusing(['post', 'put', 'patch', 'delete'], 'changeAuditLogs'),
    },
    '/audit-logs/{path}': {
      'x-gateway-wildcard-parameter': 'path',
      ...refusing(['get', 'post', 'put', 'patch', 'delete'], 'auditLogRecord', [
        pathParameter('path', 'anything after /audit-logs/, several segments included'),
      ]),
    },
  };
}
