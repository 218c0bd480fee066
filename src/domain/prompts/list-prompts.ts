/** GET /prompts: the prompts the caller sees, of one workspace, one collection, or all it may access. */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { collectionWorkspaceId, listPrompts, type PromptListRow } from '../../storage/repositories/prompts.ts';
import { findCollection } from '../prompt-collections/default-collection.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { notFound } from '../../core/errors.ts';
import type { ListPromptsInput } from './inputs.ts';

export async function listPromptsFor(
  db: Db,
  principal: Principal,
  filter: ListPromptsInput,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: PromptListRow[] }> {
  let workspaceIds: string[] | undefined;
  if (filter.workspace !== undefined) workspaceIds = [(await visibleWorkspace(db, principal, filter.workspace)).id];
  else if (principal.keyType === 'workspace') workspaceIds = [principal.workspaceId];
  // organisation-level callers that are not admins see no workspace
  else if (!isOrganisationAdmin(principal)) workspaceIds = [];
  let collectionId: string | undefined;
  if (filter.collectionId !== undefined) {
    // an organisation admin may name another workspace's collection by its id
    const owner = workspaceIds === undefined && isUuid(filter.collectionId) ? await collectionWorkspaceId(db, principal.organisationId, filter.collectionId.toLowerCase()) : undefined;
    const workspace = workspaceIds?.[0] ?? owner ?? principal.workspaceId;
    const collection = await findCollection(db, workspace, filter.collectionId);
    if (!collection) throw notFound(`Collection "${filter.collectionId}" not found.`, 'collection_not_found');
    collectionId = collection.id;
  }
  return listPrompts(db, { organisationId: principal.organisationId, workspaceIds, collectionId, search: filter.search }, page);
}
