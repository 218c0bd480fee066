/**
 * Reads and changes a prompt partial. Versions are immutable: a new `string` adds version max + 1, and only
 * makeDefault moves the default (what `{{> slug}}` includes), as prompts publish (api-surface §6.9). The name and
 * status change the partial itself, with no new version.
 */
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  findPartialVersion,
  insertPartialVersion,
  latestPartialVersionNumber,
  lockPartial,
  updatePartialRow,
  updatePartialVersionDescription,
  type PartialRow,
  type PartialVersionRow,
} from '../../storage/repositories/prompt-partials.ts';
import { actorId } from '../prompt-collections/access.ts';
import { managedPartial, partialNotFound, visiblePartial } from './access.ts';
import type { UpdatePartialInput } from './inputs.ts';
import { checkPartialTemplate } from './template.ts';

/** The partial and its default version. */
export async function readPartial(db: Db, principal: Principal, idOrSlug: string): Promise<{ partial: PartialRow; version: PartialVersionRow }> {
  const partial = await visiblePartial(db, principal, idOrSlug);
  const version = await findPartialVersion(db, partial.id, partial.defaultVersion);
  if (!version) throw partialNotFound(idOrSlug);
  return { partial, version };
}

/** A managed partial, locked for the transaction: two updates number their versions one after the other. */
async function lockedPartial(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<PartialRow> {
  const row = await managedPartial(db, principal, idOrSlug, what);
  const locked = await lockPartial(db, row.id);
  if (!locked) throw partialNotFound(idOrSlug);
  return locked;
}

/** Answers the version the call made, or the default one when it made none. */
export async function updatePartial(db: Db, principal: Principal, idOrSlug: string, body: UpdatePartialInput): Promise<{ partial: PartialRow; versionId: string }> {
  const partial = await lockedPartial(db, principal, idOrSlug, 'update');
  let versionId: string;
  if (body.string !== undefined) {
    checkPartialTemplate(body.string);
    const next = (await latestPartialVersionNumber(db, partial.id)) + 1;
    const created = await insertPartialVersion(db, {
      partialId: partial.id,
      version: next,
      template: body.string,
      description: body.description ?? null,
      createdBy: actorId(principal),
    });
    versionId = created.id;
  } else {
    const current = await findPartialVersion(db, partial.id, partial.defaultVersion);
    if (!current) throw partialNotFound(idOrSlug);
    // a description says what a version is; it is not part of its content, so it may change in place
    if (body.description !== undefined) await updatePartialVersionDescription(db, current.id, body.description);
    versionId = current.id;
  }
  const updated = await updatePartialRow(db, partial.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
  });
  if (!updated) throw partialNotFound(idOrSlug);
  return { partial: updated, versionId };
}

/** PUT makeDefault `{version}`: a version the partial does not have is a 400 naming `version`. */
export async function makePartialDefault(db: Db, principal: Principal, idOrSlug: string, version: number): Promise<PartialRow> {
  const partial = await lockedPartial(db, principal, idOrSlug, 'update');
  if (!(await findPartialVersion(db, partial.id, version))) {
    throw invalidParam('version', `Prompt partial "${idOrSlug}" has no version ${version}.`, 'prompt_partial_version_not_found');
  }
  const updated = await updatePartialRow(db, partial.id, { defaultVersion: version });
  if (!updated) throw partialNotFound(idOrSlug);
  return updated;
}

/**
 * DELETE archives (api-surface §6.6): the row and its versions stay for the record; prompts no longer find it,
 * and its slug is free again.
 */
export async function deletePartial(db: Db, principal: Principal, idOrSlug: string): Promise<PartialRow> {
  const partial = await managedPartial(db, principal, idOrSlug, 'delete');
  const archived = await updatePartialRow(db, partial.id, { status: 'archived' });
  if (!archived) throw partialNotFound(idOrSlug);
  return archived;
}
