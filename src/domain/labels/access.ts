/**
 * Who sees and who changes a label (the rule of guardrails). A workspace label: seen by whoever may access the
 * workspace, changed by its managers (and organisation admins). An organisation-wide (universal) one: seen by
 * organisation admins and every workspace key of the organisation (their prompts use it), changed by admin keys
 * only. Another workspace's label is a 404, so its existence does not leak.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { findLabelRow, type LabelRow } from '../../storage/repositories/labels.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import type { LabelScopeFilter } from './inputs.ts';

export function labelNotFound(id: string) {
  return notFound(`Label "${id}" not found.`, 'label_not_found');
}

export function canSeeLabel(principal: Principal, workspaceId: string | null): boolean {
  if (workspaceId === null) return principal.keyType === 'workspace' || isOrganisationAdmin(principal);
  return canAccessWorkspace(principal, workspaceId);
}

export async function visibleLabel(db: Db, principal: Principal, id: string): Promise<LabelRow> {
  const row = await findLabelRow(db, principal.organisationId, id);
  if (!row || !canSeeLabel(principal, row.workspaceId)) throw labelNotFound(id);
  return row;
}

export function requireLabelManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation-wide labels`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its labels`);
}

export async function managedLabel(db: Db, principal: Principal, id: string, what: string): Promise<LabelRow> {
  const row = await visibleLabel(db, principal, id);
  requireLabelManager(principal, row.workspaceId, what);
  return row;
}

/** The `organisation_id` and `workspace_id` filters: the caller's organisation (else a 400), a workspace it sees (else a 404). */
export async function labelScope(db: Db, principal: Principal, filter: LabelScopeFilter): Promise<string | undefined> {
  const { organisationId } = filter;
  if (organisationId !== undefined && (!isUuid(organisationId) || organisationId.toLowerCase() !== principal.organisationId)) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }
  return filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
}
