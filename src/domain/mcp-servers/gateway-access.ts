/**
 * What the MCP gateway endpoint needs before it forwards anything: the server (a 404 unless the caller may access
 * its workspace: a key of that workspace, or an organisation admin key), its integration (a 403 while the integration
 * is not enabled for the server's workspace), the user's access (a 403 for a user key the server denies), the
 * upstream's capabilities (synced first if no sync ever succeeded) and the allow-list built from them.
 */
import type { Principal } from '../../core/context.ts';
import { forbidden } from '../../core/errors.ts';
import { allowListOf, type AllowList } from '../../mcp/allow-list.ts';
import type { McpTarget } from '../../mcp/connector.ts';
import type { Db } from '../../storage/database.ts';
import { listMcpCapabilities, listServerCapabilitySwitches } from '../../storage/repositories/mcp-capabilities.ts';
import { findMcpIntegration, mcpIntegrationUsableBy, type McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { mcpUserOverride, type McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { ensureSynced, upstreamTargetOf, type McpSyncDeps } from '../mcp-integrations/sync.ts';
import { mcpServerNotFound, visibleMcpServer } from './access.ts';

export interface GatewayServer {
  server: McpServerRow;
  integration: McpIntegrationRow;
  allow: AllowList;
  /** opens the credentials: called only when the upstream is about to be contacted */
  target(): Promise<McpTarget>;
}

export async function mayUseServer(db: Db, principal: Principal, server: McpServerRow): Promise<boolean> {
  if (principal.subType !== 'user' || principal.userId === null) return true;
  const override = await mcpUserOverride(db, server.id, principal.userId);
  return override ?? server.defaultUserAccess === 'allow';
}

export async function gatewayServer(db: Db, principal: Principal, idOrSlug: string, deps: McpSyncDeps): Promise<GatewayServer> {
  const server = await visibleMcpServer(db, principal, idOrSlug);
  const stored = await findMcpIntegration(db, principal.organisationId, server.integrationId);
  if (!stored) throw mcpServerNotFound(idOrSlug);
  if (!(await mcpIntegrationUsableBy(db, stored.id, server.workspaceId))) {
    throw forbidden(`MCP server "${server.slug}" cannot be used: its integration is not enabled for the server's workspace.`, 'mcp_integration_not_enabled');
  }
  if (!(await mayUseServer(db, principal, server))) {
    throw forbidden(`This user may not use MCP server "${server.slug}" (its user access denies it).`, 'mcp_user_access_denied');
  }
  const integration = await ensureSynced(db, stored, server.workspaceId, deps);
  const allow = allowListOf(await listMcpCapabilities(db, integration.id), await listServerCapabilitySwitches(db, server.id));
  return { server, integration, allow, target: () => upstreamTargetOf(integration, server.workspaceId, deps) };
}
