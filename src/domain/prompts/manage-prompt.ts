/** Deleting (archiving) a prompt, publishing a version as the default, and moving a label onto a version. */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  findPromptVersion,
  findUsableLabel,
  lockPrompt,
  moveVersionLabel,
  updatePromptRow,
  type PromptRow,
} from '../../storage/repositories/prompts.ts';
import { managedPrompt, promptNotFound } from './access.ts';

export function versionNotFound(reference: string) {
  return notFound(`Prompt version "${reference}" not found.`, 'prompt_version_not_found');
}

/**
 * DELETE archives: the prompt and its versions stay for the record (logs name them), but it is no longer found,
 * listed or run, and its slug is free again.
 */
export async function deletePrompt(db: Db, principal: Principal, idOrSlug: string): Promise<PromptRow> {
  const row = await managedPrompt(db, principal, idOrSlug, 'delete');
  const archived = await updatePromptRow(db, row.id, { status: 'archived' });
  if (!archived) throw promptNotFound(idOrSlug);
  return archived;
}

/** PUT /prompts/{promptId}/makeDefault {version}: the version served when a request names none. */
export async function makeDefaultVersion(db: Db, principal: Principal, idOrSlug: string, version: number): Promise<PromptRow> {
  const found = await managedPrompt(db, principal, idOrSlug, 'publish');
  const prompt = await lockPrompt(db, found.id);
  if (!prompt) throw promptNotFound(idOrSlug);
  if (!(await findPromptVersion(db, prompt.id, { version }))) throw versionNotFound(String(version));
  const updated = await updatePromptRow(db, prompt.id, { defaultVersion: version });
  if (!updated) throw promptNotFound(idOrSlug);
  return updated;
}

/**
 * PUT /prompts/{promptId}/versions/{versionId} {label_id}: the label moves onto this version, leaving the prompt's
 * other version in the same transaction (the caller's), so `prompt@label` never names two versions or none
 * mid-move. `label_id: null` takes the version's label off.
 */
export async function labelVersion(db: Db, principal: Principal, idOrSlug: string, versionId: string, labelId: string | null): Promise<PromptRow> {
  const found = await managedPrompt(db, principal, idOrSlug, 'label versions of');
  const prompt = await lockPrompt(db, found.id);
  if (!prompt) throw promptNotFound(idOrSlug);
  if (!(await findPromptVersion(db, prompt.id, { id: versionId }))) throw versionNotFound(versionId);
  let label: string | null = null;
  if (labelId !== null) {
    const row = await findUsableLabel(db, prompt.organisationId, prompt.workspaceId, labelId);
    if (!row) throw notFound(`Label "${labelId}" not found.`, 'label_not_found');
    label = row.id;
  }
  await moveVersionLabel(db, prompt.id, versionId, label);
  return prompt;
}
