/**
 * Creates a prompt partial with its version 1 (the default) in a workspace: a workspace key's own by default, the
 * named one otherwise (admin keys must name one). Managers only. Its slug is how prompts include it (`{{> slug}}`).
 */
import { requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findCollectionRow } from '../../storage/repositories/prompt-collections.ts';
import { insertPartial, insertPartialVersion, partialSlugTaken, type PartialRow, type PartialVersionRow } from '../../storage/repositories/prompt-partials.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../prompt-collections/access.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import type { CreatePartialInput } from './inputs.ts';
import { checkPartialTemplate } from './template.ts';

/** `partial-<name, slugified, at most 12 chars>-<6 hex>`: distinct at a glance from prompts' `pp-` slugs in a template. */
export function generatePartialSlug(name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug('partial', name, 12, 'snippet', randomHex);
}

async function collectionOf(db: Db, workspaceId: string, collection: string | null | undefined): Promise<string | null> {
  if (collection === undefined || collection === null) return null;
  const row = await findCollectionRow(db, workspaceId, collection);
  if (!row) throw invalidParam('collection_id', `collection_id "${collection}" is not a collection of this workspace.`, 'collection_not_found');
  return row.id;
}

export async function createPartial(db: Db, principal: Principal, body: CreatePartialInput): Promise<{ partial: PartialRow; version: PartialVersionRow }> {
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  if (workspaceId === null) throw invalidParam('workspace_id', 'workspace_id is required: a partial belongs to a workspace.');
  requireWorkspaceManager(principal, workspaceId, 'create its prompt partials');
  checkPartialTemplate(body.string);
  const collectionId = await collectionOf(db, workspaceId, body.collection_id);
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => generatePartialSlug(body.name),
    taken: (candidate) => partialSlugTaken(db, workspaceId, candidate),
    resource: 'a prompt partial',
    conflictCode: 'prompt_partial_slug_taken',
  });
  const createdBy = actorId(principal);
  let partial: PartialRow;
  try {
    partial = await insertPartial(db, { organisationId: principal.organisationId, workspaceId, collectionId, slug, name: body.name, defaultVersion: 1, createdBy });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A prompt partial with slug "${slug}" already exists.`, 'prompt_partial_slug_taken');
    throw error;
  }
  const version = await insertPartialVersion(db, { partialId: partial.id, version: 1, template: body.string, description: body.version_description ?? null, createdBy });
  return { partial, version };
}
