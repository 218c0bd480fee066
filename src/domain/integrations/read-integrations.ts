/** GET /integrations and GET /integrations/{slug}: what the caller sees (access.ts), with its workspace count. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { countEnabledWorkspaces, listIntegrations, type IntegrationRow } from '../../storage/repositories/integrations.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visibleIntegration } from './access.ts';
import type { ListIntegrationsInput } from './inputs.ts';

export async function listIntegrationsFor(
  db: Db,
  principal: Principal,
  filter: ListIntegrationsInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: IntegrationRow[] }> {
  const named = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  // organisation-level callers that are not admins see no workspace, and no organisation integration either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  const usableBy = principal.keyType === 'workspace' ? principal.workspaceId : named;
  const kind = filter.type === 'all' ? undefined : filter.type;
  return listIntegrations(db, { organisationId: principal.organisationId, kind, usableBy }, page);
}

export interface IntegrationDetails {
  row: IntegrationRow;
  /** how many workspaces may use it: 1 for a workspace integration */
  workspaceCount: number;
}

export async function readIntegration(db: Db, principal: Principal, idOrSlug: string): Promise<IntegrationDetails> {
  const row = await visibleIntegration(db, principal, idOrSlug);
  const workspaceCount = row.workspaceId === null ? await countEnabledWorkspaces(db, row) : 1;
  return { row, workspaceCount };
}
