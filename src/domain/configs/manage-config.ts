/**
 * Updates and deletes (archives) a saved config the caller manages. Every update writes a new version and points
 * the config at it, so requests pick it up whole (never half an update) and the history stays readable.
 */
import type { Principal } from '../../core/context.ts';
import type { ParseConfigOptions } from '../../routing/config-schema.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import {
  clearWorkspaceDefault,
  findConfigVersion,
  insertConfigVersion,
  lockWorkspaceDefault,
  updateConfigRow,
  type ConfigRow,
  type ConfigVersionRow,
} from '../../storage/repositories/configs.ts';
import { actorId } from '../guardrails/access.ts';
import { configNotFound, managedConfig } from './access.ts';
import { checkDefaultPlace } from './create-config.ts';
import { storableConfig } from './definition.ts';
import type { UpdateConfigInput } from './inputs.ts';
import { keepMaskedSecrets } from './masked-secrets.ts';

/**
 * A PUT replaces what it names; `config` as a whole, where a credential sent back masked keeps the stored one
 * (masked-secrets.ts). `status: archived` archives, as DELETE does.
 */
export async function updateConfig(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  body: UpdateConfigInput,
  rules: ParseConfigOptions,
  secrets: SecretCipher,
): Promise<{ config: ConfigRow; version: ConfigVersionRow }> {
  const row = await managedConfig(db, principal, idOrSlug, 'update', async (found) => {
    checkDefaultPlace(body.isDefault, found.workspaceId);
    if (body.isDefault === 1 && found.workspaceId !== null) await lockWorkspaceDefault(db, found.workspaceId);
  });
  const stored = await currentObject(db, row);
  const object = body.config !== undefined ? storableConfig(keepMaskedSecrets(body.config, stored), rules, secrets) : stored;
  const status = body.status ?? row.status;
  const isDefault = status === 'archived' ? false : body.isDefault === undefined ? row.isDefault : body.isDefault === 1;
  if (isDefault && !row.isDefault && row.workspaceId !== null) await clearWorkspaceDefault(db, row.workspaceId, row.id);
  const actor = actorId(principal);
  const name = body.name ?? row.name;
  const version = await insertConfigVersion(db, { configId: row.id, config: object, name, status, createdBy: actor });
  const updated = await updateConfigRow(db, row.id, { name, status, isDefault, currentVersionId: version.id, updatedBy: actor });
  // the row is locked (managedConfig), so it cannot have been archived in between
  if (!updated) throw configNotFound(idOrSlug);
  return { config: updated, version };
}

async function currentObject(db: Db, row: ConfigRow): Promise<Record<string, unknown>> {
  const current = row.currentVersionId ? await findConfigVersion(db, row.currentVersionId) : undefined;
  return current?.config ?? {};
}

/**
 * DELETE archives (as policies and guardrails do): the row and its versions stay for the record, but the config
 * is no longer found, listed or resolved, and its slug is free again.
 */
export async function deleteConfig(db: Db, principal: Principal, idOrSlug: string): Promise<ConfigRow> {
  const row = await managedConfig(db, principal, idOrSlug, 'delete');
  const archived = await updateConfigRow(db, row.id, { status: 'archived', isDefault: false, updatedBy: actorId(principal) });
  if (!archived) throw configNotFound(idOrSlug);
  return archived;
}
