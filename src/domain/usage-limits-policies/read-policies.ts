/** Reading usage limits policies: the list, one policy (with its entities' usage on request), its entities. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import {
  listUsageLimitEntities,
  listUsageLimitPolicies,
  usageLimitEntitiesOf,
  type UsageLimitPolicyRow,
} from '../../storage/repositories/usage-limit-policies.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visiblePolicy } from './access.ts';
import { entityUsages } from './entity-usage.ts';
import type { ListEntitiesInput, ListUsageLimitsPoliciesInput } from './inputs.ts';
import type { EntityUsageView } from './views.ts';

type Page = { offset: number; limit: number };

/** value_key_usage_map holds at most this many entities (the entities route pages through all of them) */
export const USAGE_MAP_MAX = 1000;

export async function listPoliciesFor(db: Db, principal: Principal, filter: ListUsageLimitsPoliciesInput, page: Page): Promise<{ total: number; rows: UsageLimitPolicyRow[] }> {
  const workspaceId = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  // organisation-level callers that are not admins see no workspace, and no organisation-wide policy either
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  return listUsageLimitPolicies(db, {
    organisationId: principal.organisationId,
    status: filter.status,
    type: filter.type,
    workspaceId,
    visibleToWorkspace: principal.keyType === 'workspace' ? principal.workspaceId : undefined,
  }, page);
}

export async function readPolicy(
  db: Db,
  kv: KvStore,
  principal: Principal,
  id: string,
  options: { status: 'active' | 'archived'; includeUsage: boolean; now: Date },
): Promise<{ policy: UsageLimitPolicyRow; entities: EntityUsageView[] | undefined }> {
  const policy = await visiblePolicy(db, principal, id, options.status);
  if (!options.includeUsage) return { policy, entities: undefined };
  const rows = await usageLimitEntitiesOf(db, policy.id, USAGE_MAP_MAX);
  return { policy, entities: await entityUsages(kv, policy, rows, options.now) };
}

export async function listEntitiesFor(
  db: Db,
  kv: KvStore,
  principal: Principal,
  id: string,
  filter: ListEntitiesInput,
  page: Page,
  now: Date,
): Promise<{ policy: UsageLimitPolicyRow; total: number; entities: EntityUsageView[] }> {
  const policy = await visiblePolicy(db, principal, id);
  const { total, rows } = await listUsageLimitEntities(db, policy.id, filter, page);
  return { policy, total, entities: await entityUsages(kv, policy, rows, now) };
}
