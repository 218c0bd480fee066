/**
 * The Logs group (api-surface §3.21 and our list): GET /logs (filters, cursor pages), GET /logs/{logId} (the whole
 * record), POST /logs (custom logs). Workspace keys see their own workspace's logs; admin keys every workspace's.
 */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../../core/errors.ts';
import { isUuid } from '../../../core/ids.ts';
import { insertCustomLogs } from '../../../domain/logs/custom-logs.ts';
import { parseSensitiveHeaderList } from '../../../domain/logs/header-masking.ts';
import { listLogsPage, readLog } from '../../../domain/logs/read-logs.ts';
import { logListItemView, logObjectView } from '../../../domain/logs/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { registerLogExportRoutes } from './export-routes.ts';
import { logListQuery, logPageQuery } from './query.ts';
import { validateCustomLogs } from './schemas.ts';

const RESOURCE = 'log';

function logIdParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.logId;
  if (typeof value !== 'string' || !isUuid(value)) throw invalidParam('logId', 'logId must be a UUID.');
  return value.toLowerCase();
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

export function registerLogRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/v1/logs', adminRoute(deps, { action: 'logs.list', resourceType: RESOURCE, scope: 'logs.list', mutation: false }, async (ctx) => {
    const query = logListQuery(ctx.request.query);
    const page = logPageQuery(ctx.request.query);
    const { rows, nextCursor } = await listLogsPage(ctx.db, ctx.principal, query, page);
    return { body: { object: 'list', data: rows.map(logListItemView), next_cursor: nextCursor } };
  }));

  app.get('/v1/logs/:logId', adminRoute(deps, { action: 'logs.view', resourceType: RESOURCE, scope: 'logs.view', mutation: false }, async (ctx) => {
    const row = await readLog(ctx.db, ctx.principal, logIdParam(ctx.request.params));
    return { body: logObjectView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  // the reference answers 200 with no body; we send `{}` so every JSON client parses the answer
  app.post('/v1/logs', adminRoute(deps, { action: 'logs.write', resourceType: RESOURCE, scope: 'logs.write', mutation: true }, async (ctx) => {
    const logs = validateCustomLogs(ctx.request.body);
    const callSensitiveHeaders = parseSensitiveHeaderList(headerText(ctx.request.headers['x-gateway-sensitive-headers']), 'x-gateway-sensitive-headers');
    await insertCustomLogs(ctx.db, logs, { principal: ctx.principal, now: deps.now(), headersToMask: deps.headersToMask, callSensitiveHeaders });
    return { body: {}, workspaceId: ctx.principal.workspaceId };
  }));

  registerLogExportRoutes(app, deps);
}
