/**
 * The Logs Export group (api-surface §3.22): POST|GET /logs/exports, GET|PUT /logs/exports/{exportId},
 * POST /logs/exports/{exportId}/start|cancel, GET /logs/exports/{exportId}/download. A started export runs on this
 * node in the background (domain/logs/export-job.ts); the download answer is a signed URL of
 * GET /downloads/log-exports/{exportId} (src/http/routes/log-downloads.ts), which needs no key.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DOWNLOAD_FORMATS, type DownloadFormat } from '../../../domain/logs/download-signature.ts';
import { downloadSignerFor } from '../../../domain/logs/download-signer.ts';
import { createLogExportJobs, type LogExportJobs } from '../../../domain/logs/export-job.ts';
import { cancelExport, createExport, exportDownloadPath, listExports, startExport, updateExport, visibleExport } from '../../../domain/logs/exports.ts';
import { exportItemView } from '../../../domain/logs/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalEnum, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateCreateLogExport, validateEmptyAction, validateUpdateLogExport } from './schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** this node's running log exports (tests wait on `settled(id)`) */
    logExportJobs: LogExportJobs;
  }
}

const RESOURCE = 'log_export';
const SCOPE = 'logs.export';

/** The signed URL is absolute (the reference types it `uri`), on the origin the caller used. */
function absolute(request: FastifyRequest, path: string): string {
  return `${request.protocol}://${request.host}${path}`;
}

export function registerLogExportRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const jobs = createLogExportJobs({
    db: deps.database.db,
    now: deps.now,
    onError: (error, exportId) => app.log.error({ err: error, exportId }, 'a log export failed'),
  });
  app.decorate('logExportJobs', jobs);
  app.addHook('onClose', () => jobs.close());
  const signer = downloadSignerFor(deps.secrets);
  const exportId = (params: unknown) => uuidParam(params, 'exportId');

  app.post('/v1/logs/exports', adminRoute(deps, { action: 'log_exports.create', resourceType: RESOURCE, scope: SCOPE, mutation: true }, async (ctx) => {
    const row = await createExport(ctx.db, ctx.principal, validateCreateLogExport(ctx.request.body), deps.now());
    return { body: { id: row.id, total: row.total, object: 'export' }, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/logs/exports', adminRoute(deps, { action: 'log_exports.list', resourceType: RESOURCE, scope: SCOPE, mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 50, maxSize: 100 });
    const { total, rows } = await listExports(ctx.db, ctx.principal, optionalString(ctx.request.query, 'workspace_id', 64), page);
    return { body: listBody(total, rows.map(exportItemView)) };
  }));

  app.get('/v1/logs/exports/:exportId', adminRoute(deps, { action: 'log_exports.read', resourceType: RESOURCE, scope: SCOPE, mutation: false }, async (ctx) => {
    const row = await visibleExport(ctx.db, ctx.principal, exportId(ctx.request.params));
    return { body: exportItemView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/logs/exports/:exportId', adminRoute(deps, { action: 'log_exports.update', resourceType: RESOURCE, scope: SCOPE, mutation: true }, async (ctx) => {
    const id = exportId(ctx.request.params);
    const row = await updateExport(ctx.db, ctx.principal, id, validateUpdateLogExport(ctx.request.body), deps.now());
    return { body: { id: row.id, total: row.total, object: 'export' }, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.post('/v1/logs/exports/:exportId/start', adminRoute(deps, { action: 'log_exports.start', resourceType: RESOURCE, scope: SCOPE, mutation: true }, async (ctx) => {
    const id = exportId(ctx.request.params);
    validateEmptyAction(ctx.request.body);
    const { row, run } = await startExport(ctx.db, ctx.principal, id, deps.now());
    return {
      body: { message: `Log export ${row.id} started: ${row.total} rows.`, object: 'export' },
      resourceId: row.id,
      workspaceId: row.workspaceId,
      // the job reads the committed `in_progress` row
      afterCommit: async () => jobs.start(row.id, run),
    };
  }));

  app.post('/v1/logs/exports/:exportId/cancel', adminRoute(deps, { action: 'log_exports.cancel', resourceType: RESOURCE, scope: SCOPE, mutation: true }, async (ctx) => {
    const id = exportId(ctx.request.params);
    validateEmptyAction(ctx.request.body);
    const row = await cancelExport(ctx.db, ctx.principal, id, deps.now());
    // a run on another node sees `stopped` at its next page
    return { body: { message: `Log export ${row.id} stopped.`, object: 'export' }, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: async () => jobs.cancel(row.id) };
  }));

  app.get('/v1/logs/exports/:exportId/download', adminRoute(deps, { action: 'log_exports.download', resourceType: RESOURCE, scope: SCOPE, mutation: false }, async (ctx) => {
    const id = exportId(ctx.request.params);
    const format: DownloadFormat = optionalEnum(ctx.request.query, 'format', DOWNLOAD_FORMATS) ?? 'jsonl';
    const path = await exportDownloadPath(ctx.db, ctx.principal, id, format, signer, deps.now());
    return { body: { signed_url: absolute(ctx.request, path) }, resourceId: id };
  }));
}
