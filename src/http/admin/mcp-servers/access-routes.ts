/** MCP Servers > Capabilities, > User Access and > Connections (api-surface §3.16). */
import type { FastifyInstance } from 'fastify';
import { capabilityCounts, pageOf } from '../../../domain/mcp-integrations/capabilities.ts';
import type { McpSyncDeps } from '../../../domain/mcp-integrations/sync.ts';
import { mcpServerParam } from '../../../domain/mcp-servers/access.ts';
import { serverCapabilities, serverCapabilityView, updateServerCapabilities } from '../../../domain/mcp-servers/capabilities.ts';
import { deleteConnection, listConnections } from '../../../domain/mcp-servers/connections.ts';
import { listUserAccess, updateUserAccess, userAccessView } from '../../../domain/mcp-servers/user-access.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { capabilityPage } from '../mcp-integrations/capability-routes.ts';
import { validateUpdateMcpCapabilities } from '../mcp-integrations/schemas.ts';
import { optionalInteger, optionalString, pageParams, uuidParam } from '../params.ts';
import { validateUpdateMcpUserAccess } from './schemas.ts';

const RESOURCE = 'mcp_server';

const optionalUuid = (query: unknown, name: string) => (optionalString(query, name) === undefined ? undefined : uuidParam(query, name));

export function registerMcpServerAccessRoutes(app: FastifyInstance, deps: AdminDeps, sync: McpSyncDeps): void {
  app.get('/v1/mcp-servers/:mcpServerId/capabilities', adminRoute(deps, { action: 'mcp_servers.capabilities.list', resourceType: RESOURCE, scope: 'mcp_servers.read', mutation: false }, async (ctx) => {
    const page = capabilityPage(ctx.request.query);
    const { row, capabilities } = await serverCapabilities(ctx.db, ctx.principal, mcpServerParam(ctx.request.params), sync);
    const counts = capabilityCounts(capabilities.map((entry) => ({ type: entry.capability.type, usable: entry.enabled && entry.capability.enabled })));
    const shown = page.type === undefined ? capabilities : capabilities.filter((entry) => entry.capability.type === page.type);
    const { data, total, has_more } = pageOf(shown.map(serverCapabilityView), page);
    return { body: { object: 'list', total, data, counts, has_more }, resourceId: row.id };
  }));

  app.put('/v1/mcp-servers/:mcpServerId/capabilities', adminRoute(deps, { action: 'mcp_servers.capabilities.update', resourceType: RESOURCE, scope: 'mcp_servers.update', mutation: true }, async (ctx) => {
    const idOrSlug = mcpServerParam(ctx.request.params);
    const row = await updateServerCapabilities(ctx.db, ctx.principal, idOrSlug, validateUpdateMcpCapabilities(ctx.request.body));
    return { body: { success: true }, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/mcp-servers/:mcpServerId/user-access', adminRoute(deps, { action: 'mcp_servers.user_access.list', resourceType: RESOURCE, scope: 'mcp_servers.read', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const pageNumber = optionalInteger(query, 'page', 1, 1_000_000) ?? 1;
    const size = optionalInteger(query, 'page_size', 1, 500) ?? 100;
    const page = { offset: (pageNumber - 1) * size, limit: size };
    const { row, total, users } = await listUserAccess(ctx.db, ctx.principal, mcpServerParam(ctx.request.params), optionalString(query, 'search'), page);
    const data = users.map((user) => userAccessView(row, user));
    return { body: { object: 'list', total, data, default_user_access: row.defaultUserAccess, has_more: page.offset + data.length < total }, resourceId: row.id };
  }));

  app.put('/v1/mcp-servers/:mcpServerId/user-access', adminRoute(deps, { action: 'mcp_servers.user_access.update', resourceType: RESOURCE, scope: 'mcp_servers.update', mutation: true }, async (ctx) => {
    const idOrSlug = mcpServerParam(ctx.request.params);
    const row = await updateUserAccess(ctx.db, ctx.principal, idOrSlug, validateUpdateMcpUserAccess(ctx.request.body));
    return { body: { success: true }, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/mcp-servers/:mcpServerId/connections', adminRoute(deps, { action: 'mcp_servers.connections.list', resourceType: RESOURCE, scope: 'mcp_servers.read', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    optionalUuid(query, 'user_id');
    optionalString(query, 'workspace_id');
    pageParams(query, { defaultSize: 100, maxSize: 500 });
    const { row, total, data } = await listConnections(ctx.db, ctx.principal, mcpServerParam(ctx.request.params));
    return { body: { object: 'list', total, data, has_more: false }, resourceId: row.id };
  }));

  app.delete('/v1/mcp-servers/:mcpServerId/connections', adminRoute(deps, { action: 'mcp_servers.connections.delete', resourceType: RESOURCE, scope: 'mcp_servers.update', mutation: true }, async (ctx) => {
    const query = ctx.request.query;
    optionalString(query, 'workspace_id');
    const row = await deleteConnection(ctx.db, ctx.principal, mcpServerParam(ctx.request.params), optionalUuid(query, 'user_id'));
    return { body: { success: true }, resourceId: row.id, workspaceId: row.workspaceId };
  }));
}
