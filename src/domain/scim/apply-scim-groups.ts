/**
 * Applies the identity provider's word on a user's groups: every active mapping of a group the user is in grants
 * its workspace (highest role wins when several map to one workspace); a grant the user no longer qualifies for
 * (left the group, mapping archived) is withdrawn, and a membership left without grants is removed. Only
 * memberships SCIM granted are touched: one an admin gave by hand (no grants) is left as it is. Called at JWT
 * sign-in with the token's `groups` claim; any future provisioning path (SCIM /Groups) calls it the same way.
 */
import type { Db } from '../../storage/database.ts';
import {
  deleteGrantsOfUser,
  grantsOfUser,
  insertGrants,
  mappingsOfGroups,
  membershipRole,
  type MappingGrant,
} from '../../storage/repositories/scim.ts';
import { settleScimMembership, type MembershipChange } from './settle-membership.ts';

/** More names than any identity provider puts in a token; the rest is ignored rather than sent to the database. */
export const MAX_GROUPS = 1000;

export interface ApplyScimGroupsInput {
  organisationId: string;
  userId: string;
  /** group ids (the gateway's or the identity provider's) or display names; anything but a non-empty string is ignored */
  groups: readonly unknown[];
}

function groupNames(groups: readonly unknown[]): string[] {
  const names = groups.filter((group): group is string => typeof group === 'string' && group.length > 0 && group.length <= 255);
  return [...new Set(names)].slice(0, MAX_GROUPS);
}

const ids = (grants: readonly MappingGrant[]) => new Set(grants.map((grant) => grant.mappingId));

/** Runs in the caller's transaction; returns the memberships it settled. */
export async function applyScimGroups(db: Db, input: ApplyScimGroupsInput): Promise<MembershipChange[]> {
  const wanted = await mappingsOfGroups(db, input.organisationId, groupNames(input.groups));
  const held = await grantsOfUser(db, input.userId);
  const workspaces = [...new Set([...wanted, ...held].map((grant) => grant.workspaceId))].sort();
  const changes: MembershipChange[] = [];
  for (const workspaceId of workspaces) {
    const wantedHere = wanted.filter((grant) => grant.workspaceId === workspaceId);
    const heldHere = held.filter((grant) => grant.workspaceId === workspaceId);
    if (heldHere.length === 0 && (await membershipRole(db, workspaceId, input.userId)) !== undefined) continue;
    const keep = ids(wantedHere);
    const had = ids(heldHere);
    await deleteGrantsOfUser(db, input.userId, [...had].filter((id) => !keep.has(id)));
    await insertGrants(db, input.userId, wantedHere.filter((grant) => !had.has(grant.mappingId)));
    changes.push(await settleScimMembership(db, workspaceId, input.userId));
  }
  return changes;
}

/**
 * The hook the JWT resolver calls at sign-in: one transaction per sign-in, and cached credentials dropped when a
 * removed membership took user keys with it.
 */
export function scimSignIn(db: Db, onKeysDeleted: () => Promise<void>) {
  return async (input: ApplyScimGroupsInput): Promise<void> => {
    const changes = await db.transaction((tx) => applyScimGroups(tx, input));
    if (changes.some((change) => change.deletedKeyIds.length > 0)) await onKeysDeleted();
  };
}
