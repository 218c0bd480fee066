/** MCP servers as the admin API shows them (api-surface §3.16 McpServer, McpServerListItem). No credential shows. */
import type { McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import type { McpServerListRow, McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { maskedMcpConfigurations } from '../mcp-integrations/configurations.ts';

export function mcpServerRefView(row: McpServerRow) {
  return { id: row.id, slug: row.slug };
}

export function mcpServerListView({ server, integrationSlug, integrationUrl, authType, workspaceName, workspaceSlug }: McpServerListRow) {
  return {
    id: server.id,
    organisation_id: server.organisationId,
    name: server.name,
    description: server.description,
    status: server.status,
    created_at: server.createdAt.toISOString(),
    owner_id: server.createdBy,
    slug: server.slug,
    workspace_id: server.workspaceId,
    mcp_integration_id: server.integrationId,
    mcp_integration_slug: integrationSlug,
    mcp_integration_url: integrationUrl,
    auth_type: authType,
    workspace_name: workspaceName,
    workspace_slug: workspaceSlug,
    url: integrationUrl,
  };
}

export function mcpServerDetailView(row: McpServerRow, integration: McpIntegrationRow | undefined) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    description: row.description,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    workspace_id: row.workspaceId,
    mcp_integration_id: row.integrationId,
    default_user_access: row.defaultUserAccess,
    mcp_integration_details: integration
      ? {
          id: integration.id,
          slug: integration.slug,
          status: integration.status,
          configurations: maskedMcpConfigurations(integration.configurations),
          url: integration.url,
          transport: integration.transport,
          auth_type: integration.authType,
        }
      : null,
  };
}
