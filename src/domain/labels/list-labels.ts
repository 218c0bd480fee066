/** GET /labels: the labels the caller sees (access.ts), of one workspace (with the universal ones) or all of them. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { listLabels, type LabelRow } from '../../storage/repositories/labels.ts';
import { labelScope } from './access.ts';
import type { ListLabelsInput } from './inputs.ts';
import { ensureUniversalLabels } from './universal-labels.ts';

export async function listLabelsFor(
  db: Db,
  principal: Principal,
  filter: ListLabelsInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: LabelRow[] }> {
  const workspaceId = await labelScope(db, principal, filter);
  // organisation-level callers that are not admins see no workspace, and no universal label either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  await ensureUniversalLabels(db, principal.organisationId);
  return listLabels(db, {
    organisationId: principal.organisationId,
    workspaceId: workspaceId ?? (principal.keyType === 'workspace' ? principal.workspaceId : undefined),
    search: filter.search,
  }, page);
}
