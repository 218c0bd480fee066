/**
 * The MCP Integrations group (api-surface §3.15): POST|GET /mcp-integrations, GET|PUT|DELETE
 * /mcp-integrations/{mcpIntegrationId} (id or slug), its metadata, and the workspaces and capabilities
 * sub-resources (capability-routes.ts). After a create, or a change of URL or credentials, the upstream is synced
 * once the change is committed (a sync is network work: it never runs inside the transaction).
 */
import type { FastifyInstance } from 'fastify';
import { mcpIntegrationParam, visibleMcpIntegration } from '../../../domain/mcp-integrations/access.ts';
import { createMcpIntegration } from '../../../domain/mcp-integrations/create-integration.ts';
import { deleteMcpIntegration, updateMcpIntegration } from '../../../domain/mcp-integrations/manage-integration.ts';
import { listMcpIntegrationsFor, readMcpIntegration } from '../../../domain/mcp-integrations/read-integrations.ts';
import { syncMcpIntegration } from '../../../domain/mcp-integrations/sync.ts';
import { mcpIntegrationDetailView, mcpIntegrationListView, mcpIntegrationMetadataView, mcpIntegrationRefView } from '../../../domain/mcp-integrations/views.ts';
import type { McpIntegrationRow } from '../../../storage/repositories/mcp-integrations.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { originalBody, redactForAudit } from '../integrations/audit-redaction.ts';
import { optionalEnum, optionalString, pageParams } from '../params.ts';
import { registerMcpIntegrationCapabilityRoutes } from './capability-routes.ts';
import { validateCreateMcpIntegration, validateUpdateMcpIntegration } from './schemas.ts';
import { mcpAdminServices } from './services.ts';

const RESOURCE = 'mcp_integration';
const TYPES = ['workspace', 'organisation', 'all'] as const;

export function registerMcpIntegrationRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { rules, sync } = mcpAdminServices(app, deps);
  // the audit record keeps the body with every header value masked, whatever the header's name
  const hideSecrets = { preHandler: redactForAudit(new Set(['custom_headers'])) };
  const syncAfter = (row: McpIntegrationRow, workspaceId: string) => async () => {
    await syncMcpIntegration(deps.database.db, row, workspaceId, sync);
  };

  app.post('/v1/mcp-integrations', hideSecrets, adminRoute(deps, { action: 'mcp_integrations.create', resourceType: RESOURCE, scope: 'mcp_integrations.create', mutation: true }, async (ctx) => {
    const body = validateCreateMcpIntegration(originalBody(ctx.request));
    const row = await createMcpIntegration(ctx.db, ctx.principal, body, rules, deps.secrets);
    const afterCommit = syncAfter(row, row.workspaceId ?? ctx.principal.workspaceId);
    return { body: mcpIntegrationRefView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit };
  }));

  app.get('/v1/mcp-integrations', adminRoute(deps, { action: 'mcp_integrations.list', resourceType: RESOURCE, scope: 'mcp_integrations.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 100, maxSize: 1000 });
    const filter = {
      organisation_id: optionalString(query, 'organisation_id'),
      workspace: optionalString(query, 'workspace_id'),
      type: optionalEnum(query, 'type', TYPES),
      search: optionalString(query, 'search'),
    };
    const { total, rows, workspaceCounts } = await listMcpIntegrationsFor(ctx.db, ctx.principal, filter, page);
    const data = rows.map((row) => mcpIntegrationListView(row, row.workspaceId === null ? (workspaceCounts.get(row.id) ?? 0) : 1));
    return { body: { object: 'list', total, data, has_more: page.offset + rows.length < total } };
  }));

  app.get('/v1/mcp-integrations/:mcpIntegrationId', adminRoute(deps, { action: 'mcp_integrations.read', resourceType: RESOURCE, scope: 'mcp_integrations.read', mutation: false }, async (ctx) => {
    const row = await readMcpIntegration(ctx.db, ctx.principal, mcpIntegrationParam(ctx.request.params));
    return { body: mcpIntegrationDetailView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/mcp-integrations/:mcpIntegrationId', hideSecrets, adminRoute(deps, { action: 'mcp_integrations.update', resourceType: RESOURCE, scope: 'mcp_integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = mcpIntegrationParam(ctx.request.params);
    const body = validateUpdateMcpIntegration(originalBody(ctx.request));
    const { row, resync } = await updateMcpIntegration(ctx.db, ctx.principal, idOrSlug, body, rules, deps.secrets);
    const afterCommit = resync ? syncAfter(row, row.workspaceId ?? ctx.principal.workspaceId) : undefined;
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, ...(afterCommit ? { afterCommit } : {}) };
  }));

  app.delete('/v1/mcp-integrations/:mcpIntegrationId', adminRoute(deps, { action: 'mcp_integrations.delete', resourceType: RESOURCE, scope: 'mcp_integrations.delete', mutation: true }, async (ctx) => {
    const row = await deleteMcpIntegration(ctx.db, ctx.principal, mcpIntegrationParam(ctx.request.params));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/mcp-integrations/:mcpIntegrationId/metadata', adminRoute(deps, { action: 'mcp_integrations.metadata.read', resourceType: RESOURCE, scope: 'mcp_integrations.read', mutation: false }, async (ctx) => {
    const row = await visibleMcpIntegration(ctx.db, ctx.principal, mcpIntegrationParam(ctx.request.params));
    return { body: mcpIntegrationMetadataView(row), resourceId: row.id };
  }));

  registerMcpIntegrationCapabilityRoutes(app, deps, sync);
}
