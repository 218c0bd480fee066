/**
 * The MCP Servers group (api-surface §3.16): POST|GET /mcp-servers, GET|PUT|DELETE /mcp-servers/{mcpServerId}
 * (id or slug), POST .../test, and the capabilities, user-access and connections sub-resources (access-routes.ts).
 * The test connects to the upstream, so it runs outside any transaction; it changes no setting (it refreshes the
 * synced capabilities) and is not audited.
 */
import type { FastifyInstance } from 'fastify';
import { invalidParam } from '../../../core/errors.ts';
import { isUuid } from '../../../core/ids.ts';
import { mcpServerParam } from '../../../domain/mcp-servers/access.ts';
import { createMcpServer } from '../../../domain/mcp-servers/create-server.ts';
import { deleteMcpServer, listMcpServersFor, readMcpServer, updateMcpServer } from '../../../domain/mcp-servers/manage-server.ts';
import { testMcpServer } from '../../../domain/mcp-servers/test-server.ts';
import { mcpServerDetailView, mcpServerListView, mcpServerRefView } from '../../../domain/mcp-servers/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { mcpAdminServices } from '../mcp-integrations/services.ts';
import { optionalString, pageParams } from '../params.ts';
import { registerMcpServerAccessRoutes } from './access-routes.ts';
import { validateCreateMcpServer, validateUpdateMcpServer } from './schemas.ts';

const RESOURCE = 'mcp_server';

/** `?id=a,b`: server UUIDs separated by commas. */
function idsParam(query: unknown): string[] | undefined {
  const text = optionalString(query, 'id', 10_000);
  if (text === undefined) return undefined;
  const ids = text.split(',').map((id) => id.trim());
  if (ids.length > 100 || ids.some((id) => !isUuid(id))) throw invalidParam('id', 'id must be 1 to 100 MCP server UUIDs separated by commas.');
  return ids.map((id) => id.toLowerCase());
}

export function registerMcpServerRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { sync } = mcpAdminServices(app, deps);

  app.post('/v1/mcp-servers', adminRoute(deps, { action: 'mcp_servers.create', resourceType: RESOURCE, scope: 'mcp_servers.create', mutation: true }, async (ctx) => {
    const row = await createMcpServer(ctx.db, ctx.principal, validateCreateMcpServer(ctx.request.body));
    return { body: mcpServerRefView(row), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.get('/v1/mcp-servers', adminRoute(deps, { action: 'mcp_servers.list', resourceType: RESOURCE, scope: 'mcp_servers.list', mutation: false }, async (ctx) => {
    const query = ctx.request.query;
    const page = pageParams(query, { defaultSize: 100, maxSize: 100 });
    const filter = { workspace: optionalString(query, 'workspace_id'), ids: idsParam(query), search: optionalString(query, 'search') };
    const { total, rows } = await listMcpServersFor(ctx.db, ctx.principal, filter, page);
    return { body: { object: 'list', total, data: rows.map(mcpServerListView), has_more: page.offset + rows.length < total } };
  }));

  app.get('/v1/mcp-servers/:mcpServerId', adminRoute(deps, { action: 'mcp_servers.read', resourceType: RESOURCE, scope: 'mcp_servers.read', mutation: false }, async (ctx) => {
    const { row, integration } = await readMcpServer(ctx.db, ctx.principal, mcpServerParam(ctx.request.params));
    return { body: mcpServerDetailView(row, integration), resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.put('/v1/mcp-servers/:mcpServerId', adminRoute(deps, { action: 'mcp_servers.update', resourceType: RESOURCE, scope: 'mcp_servers.update', mutation: true }, async (ctx) => {
    const idOrSlug = mcpServerParam(ctx.request.params);
    const row = await updateMcpServer(ctx.db, ctx.principal, idOrSlug, validateUpdateMcpServer(ctx.request.body));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.delete('/v1/mcp-servers/:mcpServerId', adminRoute(deps, { action: 'mcp_servers.delete', resourceType: RESOURCE, scope: 'mcp_servers.delete', mutation: true }, async (ctx) => {
    const row = await deleteMcpServer(ctx.db, ctx.principal, mcpServerParam(ctx.request.params));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId };
  }));

  app.post('/v1/mcp-servers/:mcpServerId/test', adminRoute(deps, { action: 'mcp_servers.test', resourceType: RESOURCE, scope: 'mcp_servers.read', mutation: false }, async (ctx) => {
    const { row, answer } = await testMcpServer(ctx.db, ctx.principal, mcpServerParam(ctx.request.params), sync);
    return { body: answer, resourceId: row.id };
  }));

  registerMcpServerAccessRoutes(app, deps, sync);
}
