/**
 * Creates a prompt collection in a workspace: a workspace key's own by default, the named one otherwise (admin keys
 * must name one: a collection always belongs to a workspace). Managers only.
 */
import { requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { collectionSlugTaken, insertCollection, type CollectionRow } from '../../storage/repositories/prompt-collections.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { actorId } from './access.ts';
import type { CreateCollectionInput } from './inputs.ts';
import { resolveParent } from './parent.ts';

/** `col-<name, slugified, at most 10 chars>-<6 hex>`; never `default`, which the default collection holds. */
export function generateCollectionSlug(name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug('col', name, 10, 'collection', randomHex);
}

export async function createCollection(db: Db, principal: Principal, body: CreateCollectionInput): Promise<CollectionRow> {
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  if (workspaceId === null) throw invalidParam('workspace_id', 'workspace_id is required: a collection belongs to a workspace.');
  requireWorkspaceManager(principal, workspaceId, 'create its prompt collections');
  const parentCollectionId = await resolveParent(db, workspaceId, body.parent_collection_id);
  const slug = await chooseSlug({
    requested: undefined,
    generate: () => generateCollectionSlug(body.name),
    taken: (candidate) => collectionSlugTaken(db, workspaceId, candidate),
    resource: 'a collection',
    conflictCode: 'collection_slug_taken',
  });
  try {
    return await insertCollection(db, {
      organisationId: principal.organisationId,
      workspaceId,
      slug,
      name: body.name,
      parentCollectionId,
      createdBy: actorId(principal),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A collection with slug "${slug}" already exists.`, 'collection_slug_taken');
    throw error;
  }
}
