/**
 * DELETE /scim/workspaces/{id} archives the mapping (the row stays for the record) and revokes what it granted:
 * its grants go, and each membership it held up is settled on the grants left (another mapping of the same
 * workspace may still hold it, perhaps with a lower role). Memberships an admin gave by hand are never touched.
 */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { archiveMappingRow, deleteGrantsOfMapping, findActiveMapping, type ScimMappingWithGroup } from '../../storage/repositories/scim.ts';
import { requireScimAdmin } from './access.ts';
import { settleScimMembership, type MembershipChange } from './settle-membership.ts';

export interface ArchivedMapping {
  mapping: ScimMappingWithGroup;
  changes: MembershipChange[];
}

export async function archiveScimMapping(db: Db, principal: Principal, id: string): Promise<ArchivedMapping> {
  requireScimAdmin(principal, 'delete');
  const mapping = await findActiveMapping(db, principal.organisationId, id);
  const gone = () => notFound(`SCIM mapping "${id}" not found.`, 'scim_mapping_not_found');
  if (!mapping) throw gone();
  if (!(await archiveMappingRow(db, mapping.id))) throw gone();
  const changes: MembershipChange[] = [];
  for (const userId of await deleteGrantsOfMapping(db, mapping.id)) {
    changes.push(await settleScimMembership(db, mapping.workspaceId, userId));
  }
  return { mapping: { ...mapping, status: 'archived' }, changes };
}
