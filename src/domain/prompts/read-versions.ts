/** Reading a visible prompt's versions: its default, one by id, all of them (newest first). */
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { findPromptVersion, listPromptVersions, type PromptRow, type PromptVersionRow } from '../../storage/repositories/prompts.ts';
import { visiblePrompt } from './access.ts';
import { versionNotFound } from './manage-prompt.ts';

/** The prompt at its default version, or at the version `versionId` names. */
export async function promptAtVersion(db: Db, principal: Principal, idOrSlug: string, versionId?: string): Promise<{ prompt: PromptRow; version: PromptVersionRow }> {
  const prompt = await visiblePrompt(db, principal, idOrSlug);
  const version = await findPromptVersion(db, prompt.id, versionId === undefined ? { version: prompt.defaultVersion } : { id: versionId });
  if (!version) throw versionNotFound(versionId ?? `${prompt.slug}@${prompt.defaultVersion}`);
  return { prompt, version };
}

export async function promptVersions(db: Db, principal: Principal, idOrSlug: string): Promise<{ prompt: PromptRow; versions: PromptVersionRow[] }> {
  const prompt = await visiblePrompt(db, principal, idOrSlug);
  return { prompt, versions: await listPromptVersions(db, prompt.id) };
}
