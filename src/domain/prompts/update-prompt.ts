/**
 * PUT /prompts/{promptId} (api-surface §3.10): `name`, `collection_id`, `virtual_key` and `version_description`
 * change the prompt in place; a change to the template fields makes a new version, numbered after the latest.
 * With `patch: true` the version fields left out are copied from the latest version; without it the body is the
 * whole version. A body whose version fields equal the latest version's makes no version. A new version is not
 * the default until it is published (makeDefault); `@latest` addresses it at once.
 */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import {
  findPromptVersion,
  insertPromptVersion,
  latestVersionNumber,
  lockPrompt,
  setVersionDescription,
  updatePromptRow,
  type PromptRow,
  type PromptVersionRow,
} from '../../storage/repositories/prompts.ts';
import { findCollection } from '../prompt-collections/default-collection.ts';
import { notFound } from '../../core/errors.ts';
import { actorId, managedPrompt, promptNotFound } from './access.ts';
import { fieldsOf, sameFields, touchesVersion, versionFields } from './definition.ts';
import type { UpdatePromptInput } from './inputs.ts';

export async function updatePrompt(db: Db, principal: Principal, idOrSlug: string, body: UpdatePromptInput): Promise<{ prompt: PromptRow; version: PromptVersionRow }> {
  const found = await managedPrompt(db, principal, idOrSlug, 'update');
  const prompt = await lockPrompt(db, found.id);
  const latest = prompt && (await findPromptVersion(db, prompt.id, { latest: true }));
  if (!prompt || !latest) throw promptNotFound(idOrSlug);
  let collectionId: string | undefined;
  if (body.collection_id !== undefined) {
    const collection = await findCollection(db, prompt.workspaceId, body.collection_id);
    if (!collection) throw notFound(`Collection "${body.collection_id}" not found.`, 'collection_not_found');
    collectionId = collection.id;
  }
  let version = latest;
  const fields = touchesVersion(body) ? versionFields(body, body.patch === true ? fieldsOf(latest) : undefined) : undefined;
  if (fields && !sameFields(fields, fieldsOf(latest))) {
    const number = (await latestVersionNumber(db, prompt.id)) + 1;
    version = await insertPromptVersion(db, { ...fields, promptId: prompt.id, version: number, description: body.version_description ?? null, createdBy: actorId(principal) });
  } else if (body.version_description !== undefined) {
    await setVersionDescription(db, latest.id, body.version_description);
    version = { ...latest, description: body.version_description };
  }
  const updated = await updatePromptRow(db, prompt.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(collectionId !== undefined ? { collectionId } : {}),
    ...(body.virtual_key !== undefined ? { virtualKey: body.virtual_key } : {}),
  });
  if (!updated) throw promptNotFound(idOrSlug);
  return { prompt: updated, version };
}
