/**
 * POST /mcp-servers/{id}/test: connects to the upstream with the integration's credentials, runs `initialize` and
 * every list, and answers how it went. It is also a sync: what the upstream offers now is stored (sync.ts).
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { findMcpIntegration } from '../../storage/repositories/mcp-integrations.ts';
import type { McpServerRow } from '../../storage/repositories/mcp-servers.ts';
import { syncMcpIntegration, type McpSyncDeps } from '../mcp-integrations/sync.ts';
import { mcpServerNotFound, visibleMcpServer } from './access.ts';

export interface ServerTest {
  row: McpServerRow;
  answer: {
    success: boolean;
    status_code: number | null;
    response_time_ms: number | null;
    url: string | null;
    server_name: string | null;
    error: string | null;
  };
}

export async function testMcpServer(db: Db, principal: Principal, idOrSlug: string, deps: McpSyncDeps): Promise<ServerTest> {
  const row = await visibleMcpServer(db, principal, idOrSlug);
  const integration = await findMcpIntegration(db, principal.organisationId, row.integrationId);
  if (!integration) throw mcpServerNotFound(idOrSlug);
  const outcome = await syncMcpIntegration(db, integration, row.workspaceId, deps);
  return {
    row,
    answer: {
      success: outcome.ok,
      status_code: outcome.statusCode,
      response_time_ms: outcome.responseTimeMs,
      url: integration.url,
      server_name: outcome.ok ? outcome.row.serverName : null,
      error: outcome.error,
    },
  };
}
