/**
 * Creates an MCP server: an integration put to use in one workspace, which the workspace's managers (and
 * organisation admins) may do when the integration is usable there (a workspace integration of that workspace, or an
 * organisation one enabled for it). Its slug is unique in the organisation: it addresses the gateway endpoint.
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { mcpIntegrationUsableBy } from '../../storage/repositories/mcp-integrations.ts';
import { insertMcpServer, mcpServerSlugTaken, type McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../guardrails/access.ts';
import { visibleMcpIntegration } from '../mcp-integrations/access.ts';
import { chooseSlug, prefixedSlug } from '../slugs.ts';
import { requireWorkspaceManager } from '../../auth/authorize.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import type { CreateMcpServerInput } from './inputs.ts';

export async function createMcpServer(db: Db, principal: Principal, body: CreateMcpServerInput): Promise<McpServerRow> {
  const workspaceId = (await targetWorkspace(db, principal, body.workspace_id)) ?? principal.workspaceId;
  requireWorkspaceManager(principal, workspaceId, 'create its MCP servers');
  const integration = await visibleMcpIntegration(db, principal, body.mcp_integration_id);
  if (!(await mcpIntegrationUsableBy(db, integration.id, workspaceId))) {
    throw invalidParam('mcp_integration_id', `MCP integration "${body.mcp_integration_id}" is not enabled for this workspace (PUT /mcp-integrations/{id}/workspaces enables it).`, 'mcp_integration_not_enabled');
  }
  const organisationId = principal.organisationId;
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => prefixedSlug('mcp', body.name, 30, 'server'),
    taken: (candidate) => mcpServerSlugTaken(db, organisationId, candidate),
    resource: 'an MCP server',
    conflictCode: 'mcp_server_slug_taken',
  });
  try {
    return await insertMcpServer(db, {
      organisationId,
      workspaceId,
      integrationId: integration.id,
      slug,
      name: body.name,
      description: body.description ?? null,
      createdBy: actorId(principal),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`An MCP server with slug "${slug}" already exists.`, 'mcp_server_slug_taken');
    throw error;
  }
}
