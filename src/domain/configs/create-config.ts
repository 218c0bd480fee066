/**
 * Creates a saved config and its first version. Workspace keys create in their own workspace (managers only);
 * admin keys in any workspace, or organisation-wide when no workspace is named. The config is checked by the
 * routing config schema; a taken slug is a 409; `isDefault: 1` takes the default over from the workspace's
 * previous default. Anything wrong leaves nothing behind (the caller's transaction).
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { ParseConfigOptions } from '../../routing/config-schema.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import {
  clearWorkspaceDefault,
  configSlugTaken,
  insertConfig,
  insertConfigVersion,
  lockWorkspaceDefault,
  updateConfigRow,
  type ConfigRow,
  type ConfigVersionRow,
} from '../../storage/repositories/configs.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../guardrails/access.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { requireConfigManager } from './access.ts';
import { storableConfig } from './definition.ts';
import type { CreateConfigInput } from './inputs.ts';

/** `pc-<name, slugified, at most 6 chars>-<6 hex>`, as in the reference's examples (`pc-pii-re-7f1051`). */
export function generateConfigSlug(name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug('pc', name, 6, 'config', randomHex);
}

/** A workspace has one default config; an organisation-wide config cannot be one. */
export function checkDefaultPlace(isDefault: number | undefined, workspaceId: string | null): void {
  if (isDefault === 1 && workspaceId === null) {
    throw invalidParam('isDefault', 'isDefault: 1 needs a workspace config (give workspace_id): an organisation-wide config cannot be a workspace default.');
  }
}

export async function createConfig(
  db: Db,
  principal: Principal,
  body: CreateConfigInput,
  rules: ParseConfigOptions,
  secrets: SecretCipher,
): Promise<{ config: ConfigRow; version: ConfigVersionRow }> {
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requireConfigManager(principal, workspaceId, 'create');
  checkDefaultPlace(body.isDefault, workspaceId);
  const object = storableConfig(body.config, rules, secrets);
  const organisationId = principal.organisationId;
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => generateConfigSlug(body.name),
    taken: (candidate) => configSlugTaken(db, organisationId, candidate),
    resource: 'a config',
    conflictCode: 'config_slug_taken',
  });
  const isDefault = body.isDefault === 1;
  if (isDefault && workspaceId !== null) {
    await lockWorkspaceDefault(db, workspaceId);
    await clearWorkspaceDefault(db, workspaceId);
  }
  const actor = actorId(principal);
  let row: ConfigRow;
  try {
    row = await insertConfig(db, { organisationId, workspaceId, slug, name: body.name, isDefault, ownerId: actor });
  } catch (error) {
    // a concurrent create took the slug between the check and the insert
    if (isUniqueViolation(error)) throw conflict(`A config with slug "${slug}" already exists.`, 'config_slug_taken');
    throw error;
  }
  const version = await insertConfigVersion(db, { configId: row.id, config: object, name: row.name, status: row.status, createdBy: actor });
  const config = await updateConfigRow(db, row.id, { currentVersionId: version.id });
  return { config: config!, version };
}
