/**
 * A policy's conditions as stored: ids where the request path compares ids. `workspace_id` may be given as a
 * workspace's slug (the reference's examples use slugs) and is stored as the workspace's id; `api_key` and
 * `organisation_id` must be ids. A value that can never match is refused with a 400 naming it, not stored.
 */
import { canAccessWorkspace } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { PolicyCondition } from '../../limits/policy-match.ts';
import type { Db } from '../../storage/database.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';

async function storedValue(db: Db, principal: Principal, condition: PolicyCondition, param: string): Promise<string> {
  const { key, value } = condition;
  if (key === 'workspace_id') {
    const workspace = await findWorkspace(db, principal.organisationId, value);
    if (!workspace || !canAccessWorkspace(principal, workspace.id)) throw invalidParam(param, `No workspace "${value}" in this organisation.`);
    return workspace.id;
  }
  if (key === 'api_key') {
    if (!isUuid(value)) throw invalidParam(param, 'An api_key condition names the API key by its id (a UUID).');
    return value.toLowerCase();
  }
  if (key === 'organisation_id') {
    if (value.toLowerCase() !== principal.organisationId) throw invalidParam(param, 'An organisation_id condition must name the caller\'s organisation.');
    return principal.organisationId;
  }
  return value;
}

export async function normaliseConditions(db: Db, principal: Principal, conditions: readonly PolicyCondition[]): Promise<PolicyCondition[]> {
  const stored: PolicyCondition[] = [];
  for (const [index, condition] of conditions.entries()) {
    stored.push({ key: condition.key, value: await storedValue(db, principal, condition, `conditions[${index}].value`) });
  }
  return stored;
}
