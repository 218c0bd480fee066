/** GET /guardrails: the guardrails the caller sees (access.ts), of one workspace or all of them. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { listGuardrails, type GuardrailRow } from '../../storage/repositories/guardrails.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import type { ListGuardrailsInput } from './inputs.ts';

export async function listGuardrailsFor(
  db: Db,
  principal: Principal,
  filter: ListGuardrailsInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: GuardrailRow[] }> {
  const { organisationId } = filter;
  if (organisationId !== undefined && (!isUuid(organisationId) || organisationId.toLowerCase() !== principal.organisationId)) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  const workspaceId = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  // organisation-level callers that are not admins see no workspace, and no organisation-wide guardrail either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  return listGuardrails(db, {
    organisationId: principal.organisationId,
    workspaceId,
    visibleToWorkspace: principal.keyType === 'workspace' ? principal.workspaceId : undefined,
  }, page);
}
