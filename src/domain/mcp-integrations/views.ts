/**
 * MCP integrations as the admin API shows them (api-surface §3.15 McpIntegration, McpIntegrationListItem, the
 * metadata). No view carries a credential: header values are `********`.
 */
import type { McpIntegrationRow, McpIntegrationWorkspaceRow } from '../../storage/repositories/mcp-integrations.ts';
import { maskedMcpConfigurations } from './configurations.ts';

function base(row: McpIntegrationRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    slug: row.slug,
    owner_id: row.createdBy,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    status: row.status,
    type: row.workspaceId === null ? ('organisation' as const) : ('workspace' as const),
    url: row.url,
    auth_type: row.authType,
    transport: row.transport,
    configurations: maskedMcpConfigurations(row.configurations),
    secret_mappings: row.secretMappings,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}

export function mcpIntegrationListView(row: McpIntegrationRow, workspacesCount: number) {
  return { ...base(row), workspaces_count: workspacesCount };
}

export function mcpIntegrationDetailView(row: McpIntegrationRow) {
  return { ...base(row), global_workspace_access: row.globalWorkspaceAccess };
}

export function mcpIntegrationRefView(row: McpIntegrationRow) {
  return { id: row.id, slug: row.slug };
}

export function mcpIntegrationMetadataView(row: McpIntegrationRow) {
  return {
    server_name: row.serverName,
    server_version: row.serverVersion,
    protocol_version: row.protocolVersion,
    capability_flags: row.capabilityFlags,
    sync_status: row.syncStatus,
    last_synced_at: row.lastSyncedAt?.toISOString() ?? null,
    sync_error: row.syncError,
  };
}

export function mcpIntegrationWorkspaceView(row: Pick<McpIntegrationWorkspaceRow, 'workspaceId' | 'enabled' | 'createdAt' | 'updatedAt'>) {
  return {
    id: row.workspaceId,
    enabled: row.enabled,
    status: row.enabled ? 'active' : 'disabled',
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}
