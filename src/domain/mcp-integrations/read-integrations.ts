/** GET /mcp-integrations and GET /mcp-integrations/{id}: what the caller sees (access.ts). */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { listMcpIntegrations, serverWorkspaceCounts, type McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visibleMcpIntegration } from './access.ts';
import { checkOrganisation } from './create-integration.ts';
import type { ListMcpIntegrationsInput } from './inputs.ts';

export interface McpIntegrationListing {
  total: number;
  rows: McpIntegrationRow[];
  /** how many workspaces use each integration through a server */
  workspaceCounts: ReadonlyMap<string, number>;
}

export async function listMcpIntegrationsFor(
  db: Db,
  principal: Principal,
  filter: ListMcpIntegrationsInput,
  page: { offset: number; limit: number },
): Promise<McpIntegrationListing> {
  checkOrganisation(principal, filter.organisation_id);
  const named = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [], workspaceCounts: new Map() };
  const usableBy = principal.keyType === 'workspace' ? principal.workspaceId : named;
  const kind = filter.type === 'all' ? undefined : filter.type;
  const { total, rows } = await listMcpIntegrations(db, { organisationId: principal.organisationId, kind, usableBy, search: filter.search }, page);
  return { total, rows, workspaceCounts: await serverWorkspaceCounts(db, rows.map((row) => row.id)) };
}

export async function readMcpIntegration(db: Db, principal: Principal, idOrSlug: string): Promise<McpIntegrationRow> {
  return visibleMcpIntegration(db, principal, idOrSlug);
}
