/** GET /prompts/partials (a bare array, api-surface §6.5) and GET /prompts/partials/{id}/versions. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findCollectionRow, findOrganisationCollectionRow } from '../../storage/repositories/prompt-collections.ts';
import { listPartials, listPartialVersions, type PartialRow, type PartialVersionRow } from '../../storage/repositories/prompt-partials.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { visiblePartial } from './access.ts';
import type { ListPartialsInput } from './inputs.ts';

/** The partials the caller sees: a workspace key its workspace's, an admin key every workspace's (or the one named). */
export async function listPartialsFor(db: Db, principal: Principal, filter: ListPartialsInput): Promise<PartialRow[]> {
  let workspaceId = filter.workspace === undefined ? undefined : (await visibleWorkspace(db, principal, filter.workspace)).id;
  if (principal.keyType === 'organisation' && !isOrganisationAdmin(principal)) return [];
  if (principal.keyType === 'workspace') workspaceId = principal.workspaceId;
  let collectionId: string | undefined;
  if (filter.collection !== undefined) {
    const collection = workspaceId === undefined
      ? await findOrganisationCollectionRow(db, principal.organisationId, filter.collection)
      : await findCollectionRow(db, workspaceId, filter.collection);
    if (!collection) throw invalidParam('collection_id', `collection_id "${filter.collection}" is not a collection the caller sees.`, 'collection_not_found');
    collectionId = collection.id;
  }
  return listPartials(db, { organisationId: principal.organisationId, workspaceId, collectionId });
}

export async function listVersionsOf(db: Db, principal: Principal, idOrSlug: string): Promise<{ partial: PartialRow; versions: PartialVersionRow[] }> {
  const partial = await visiblePartial(db, principal, idOrSlug);
  return { partial, versions: await listPartialVersions(db, partial.id) };
}
