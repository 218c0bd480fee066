/**
 * An MCP server's capabilities (§3.16 > Capabilities): its integration's, each with the integration's flag
 * (`integration_enabled`) and the server's own switch (`enabled`, on unless switched off). The gateway lets a
 * capability through only when both are on (src/mcp/allow-list.ts).
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { listMcpCapabilities, listServerCapabilitySwitches, upsertServerCapabilitySwitches, type McpCapabilityRow } from '../../storage/repositories/mcp-capabilities.ts';
import { findMcpIntegration } from '../../storage/repositories/mcp-integrations.ts';
import type { McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { capabilityView, checkSwitches } from '../mcp-integrations/capabilities.ts';
import type { UpdateCapabilitiesInput } from '../mcp-integrations/inputs.ts';
import { ensureSynced, type McpSyncDeps } from '../mcp-integrations/sync.ts';
import { managedMcpServer, mcpServerNotFound, visibleMcpServer } from './access.ts';

export interface ServerCapability {
  capability: McpCapabilityRow;
  enabled: boolean;
}

export async function serverCapabilities(db: Db, principal: Principal, idOrSlug: string, deps: McpSyncDeps): Promise<{ row: McpServerRow; capabilities: ServerCapability[] }> {
  const row = await visibleMcpServer(db, principal, idOrSlug);
  const integration = await findMcpIntegration(db, principal.organisationId, row.integrationId);
  if (!integration) throw mcpServerNotFound(idOrSlug);
  await ensureSynced(db, integration, row.workspaceId, deps);
  const switches = new Map((await listServerCapabilitySwitches(db, row.id)).map((entry) => [`${entry.type}\u0000${entry.name}`, entry.enabled]));
  const capabilities = (await listMcpCapabilities(db, integration.id)).map((capability) => ({
    capability,
    enabled: switches.get(`${capability.type}\u0000${capability.name}`) ?? true,
  }));
  return { row, capabilities };
}

export function serverCapabilityView({ capability, enabled }: ServerCapability) {
  return { ...capabilityView(capability), enabled, integration_enabled: capability.enabled };
}

export async function updateServerCapabilities(db: Db, principal: Principal, idOrSlug: string, body: UpdateCapabilitiesInput): Promise<McpServerRow> {
  const row = await managedMcpServer(db, principal, idOrSlug, 'change the capabilities of');
  checkSwitches(body.capabilities, await listMcpCapabilities(db, row.integrationId));
  await upsertServerCapabilitySwitches(db, row.id, body.capabilities);
  return row;
}
