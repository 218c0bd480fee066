/** MCP Integrations > Workspaces and > Capabilities (api-surface §3.15). */
import type { FastifyInstance } from 'fastify';
import { mcpIntegrationParam } from '../../../domain/mcp-integrations/access.ts';
import { capabilityCounts, capabilityView, integrationCapabilities, pageOf, updateIntegrationCapabilities } from '../../../domain/mcp-integrations/capabilities.ts';
import type { McpSyncDeps } from '../../../domain/mcp-integrations/sync.ts';
import { mcpIntegrationWorkspaceView } from '../../../domain/mcp-integrations/views.ts';
import { listMcpWorkspaceAccess, updateMcpWorkspaceAccess } from '../../../domain/mcp-integrations/workspace-access.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { optionalEnum, optionalInteger, optionalString } from '../params.ts';
import { validateUpdateMcpCapabilities, validateUpdateMcpWorkspaces } from './schemas.ts';

const RESOURCE = 'mcp_integration';
export const CAPABILITY_TYPES = ['tool', 'prompt', 'resource', 'resource_template'] as const;

/** `page` (1-based, the reference's) and `page_size` (1-500, default 100). */
export function capabilityPage(query: unknown) {
  const page = optionalInteger(query, 'page', 1, 1_000_000) ?? 1;
  const size = optionalInteger(query, 'page_size', 1, 500) ?? 100;
  return { page, size, type: optionalEnum(query, 'type', CAPABILITY_TYPES) };
}

export function registerMcpIntegrationCapabilityRoutes(app: FastifyInstance, deps: AdminDeps, sync: McpSyncDeps): void {
  app.get('/v1/mcp-integrations/:mcpIntegrationId/workspaces', adminRoute(deps, { action: 'mcp_integrations.workspaces.list', resourceType: RESOURCE, scope: 'mcp_integrations.read', mutation: false }, async (ctx) => {
    const versioned = optionalString(ctx.request.query, 'version', 32) !== undefined;
    const { row, access } = await listMcpWorkspaceAccess(ctx.db, ctx.principal, mcpIntegrationParam(ctx.request.params));
    const items = access.map(mcpIntegrationWorkspaceView);
    const global = row.globalWorkspaceAccess;
    // with `version` the reference answers a list; without it, the legacy `workspaces` shape
    const body = versioned
      ? { object: 'list', total: items.length, data: items, global_workspace_access: global }
      : { total: items.length, workspaces: items, global_workspace_access: global };
    return { body, resourceId: row.id };
  }));

  app.put('/v1/mcp-integrations/:mcpIntegrationId/workspaces', adminRoute(deps, { action: 'mcp_integrations.workspaces.update', resourceType: RESOURCE, scope: 'mcp_integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = mcpIntegrationParam(ctx.request.params);
    const row = await updateMcpWorkspaceAccess(ctx.db, ctx.principal, idOrSlug, validateUpdateMcpWorkspaces(ctx.request.body));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/mcp-integrations/:mcpIntegrationId/capabilities', adminRoute(deps, { action: 'mcp_integrations.capabilities.list', resourceType: RESOURCE, scope: 'mcp_integrations.read', mutation: false }, async (ctx) => {
    const page = capabilityPage(ctx.request.query);
    const { row, capabilities } = await integrationCapabilities(ctx.db, ctx.principal, mcpIntegrationParam(ctx.request.params), sync);
    const counts = capabilityCounts(capabilities.map((entry) => ({ type: entry.type, usable: entry.enabled })));
    const shown = page.type === undefined ? capabilities : capabilities.filter((entry) => entry.type === page.type);
    const { data, total, has_more } = pageOf(shown.map(capabilityView), page);
    return { body: { object: 'list', total, data, counts, has_more }, resourceId: row.id };
  }));

  app.put('/v1/mcp-integrations/:mcpIntegrationId/capabilities', adminRoute(deps, { action: 'mcp_integrations.capabilities.update', resourceType: RESOURCE, scope: 'mcp_integrations.update', mutation: true }, async (ctx) => {
    const idOrSlug = mcpIntegrationParam(ctx.request.params);
    const body = validateUpdateMcpCapabilities(ctx.request.body);
    const row = await updateIntegrationCapabilities(ctx.db, ctx.principal, idOrSlug, body);
    return { body: { success: true }, resourceId: row.id, workspaceId: row.workspaceId };
  }));
}
