/**
 * Creates a prompt and its version 1 (the default). It goes to the named collection (id or slug), else the
 * workspace's default collection; the workspace is the one named, else the collection's, else the caller's.
 * Only the workspace's managers (and organisation admins) create; a taken slug is a 409.
 */
import { canAccessWorkspace, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { conflict, notFound } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { collectionWorkspaceId, insertPrompt, insertPromptVersion, promptSlugTaken, type PromptRow, type PromptVersionRow } from '../../storage/repositories/prompts.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { defaultCollection, findCollection } from '../prompt-collections/default-collection.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { actorId } from './access.ts';
import { versionFields } from './definition.ts';
import type { CreatePromptInput } from './inputs.ts';

/** `pp-<name, slugified, at most 10 chars>-<6 hex>`, as in the reference's examples (`pp-support-b1c2d3`). */
export function generatePromptSlug(name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug('pp', name, 10, 'prompt', randomHex);
}

const collectionNotFound = (reference: string) => notFound(`Collection "${reference}" not found.`, 'collection_not_found');

/** Where the prompt goes: its workspace and collection. */
async function placement(db: Db, principal: Principal, body: CreatePromptInput): Promise<{ workspaceId: string; collectionId: string }> {
  let workspaceId = body.workspace_id === undefined ? undefined : await targetWorkspace(db, principal, body.workspace_id);
  if (workspaceId == null && body.collection_id !== undefined && isUuid(body.collection_id)) {
    workspaceId = await collectionWorkspaceId(db, principal.organisationId, body.collection_id.toLowerCase());
    if (workspaceId === undefined) throw collectionNotFound(body.collection_id);
  }
  const workspace = workspaceId ?? principal.workspaceId;
  if (!canAccessWorkspace(principal, workspace)) throw collectionNotFound(body.collection_id ?? 'default');
  requireWorkspaceManager(principal, workspace, 'create prompts in');
  const scope = { organisationId: principal.organisationId, workspaceId: workspace, createdBy: actorId(principal) };
  const collection = body.collection_id === undefined ? await defaultCollection(db, scope) : await findCollection(db, workspace, body.collection_id);
  if (!collection) throw collectionNotFound(body.collection_id ?? 'default');
  return { workspaceId: workspace, collectionId: collection.id };
}

export async function createPrompt(db: Db, principal: Principal, body: CreatePromptInput): Promise<{ prompt: PromptRow; version: PromptVersionRow }> {
  const fields = versionFields(body, undefined);
  const { workspaceId, collectionId } = await placement(db, principal, body);
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => generatePromptSlug(body.name),
    taken: (candidate) => promptSlugTaken(db, workspaceId, candidate),
    resource: 'a prompt',
    conflictCode: 'prompt_slug_taken',
  });
  const createdBy = actorId(principal);
  try {
    const prompt = await insertPrompt(db, {
      organisationId: principal.organisationId,
      workspaceId,
      collectionId,
      slug,
      name: body.name,
      virtualKey: body.virtual_key ?? null,
      defaultVersion: 1,
      createdBy,
    });
    const version = await insertPromptVersion(db, { ...fields, promptId: prompt.id, version: 1, description: body.version_description ?? null, createdBy });
    return { prompt, version };
  } catch (error) {
    // a concurrent create took the slug between the check and the insert
    if (isUniqueViolation(error)) throw conflict(`A prompt with slug "${slug}" already exists.`, 'prompt_slug_taken');
    throw error;
  }
}
