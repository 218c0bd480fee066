/**
 * Reads, updates and deletes of legacy virtual keys: the provider rows created through /virtual-keys. A new `key`
 * is sealed into the key's own integration, so every node sends it from the next request on (the caller announces
 * the change). Providers made through /providers are not virtual keys here: their integration is shared.
 */
import { isOrganisationAdmin } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { findIntegrationById, listProviders, updateProviderRow, updateVirtualKeyIntegration, type ProviderRow } from '../../storage/repositories/providers.ts';
import { visibleWorkspace } from '../workspaces/access.ts';
import { managedProvider, providerNotFound, visibleProvider } from '../providers/access.ts';
import type { ProviderAddress } from '../providers/inputs.ts';
import { archiveProvider, providerChanges } from '../providers/manage-provider.ts';
import { withIntegrations, type ProviderWithIntegration } from '../providers/read-providers.ts';
import type { ListVirtualKeysInput, UpdateVirtualKeyInput } from './inputs.ts';
import { legacyModelConfig } from './model-config.ts';
import { sealedKey } from './create-virtual-key.ts';

const KIND = 'Virtual key';

function onlyVirtualKeys(row: ProviderRow, address: ProviderAddress): ProviderRow {
  if (!row.isVirtualKey) throw providerNotFound(address.idOrSlug, KIND);
  return row;
}

export async function readVirtualKey(db: Db, principal: Principal, address: ProviderAddress): Promise<ProviderWithIntegration> {
  const row = onlyVirtualKeys(await visibleProvider(db, principal, address, KIND), address);
  const [found] = await withIntegrations(db, [row]);
  return found!;
}

/** One workspace's virtual keys; without a filter, the caller's workspace (a workspace key) or every one (admins). */
export async function listVirtualKeysFor(db: Db, principal: Principal, filter: ListVirtualKeysInput, page: { offset: number; limit: number }) {
  const organisationId = principal.organisationId;
  let workspaceId: string | undefined;
  if (filter.workspace !== undefined) workspaceId = (await visibleWorkspace(db, principal, filter.workspace)).id;
  else if (principal.keyType === 'workspace') workspaceId = principal.workspaceId;
  else if (!isOrganisationAdmin(principal)) return { total: 0, rows: [] };
  const { total, rows } = await listProviders(db, { organisationId, workspaceId, virtualKeysOnly: true }, page);
  return { total, rows: await withIntegrations(db, rows) };
}

export async function updateVirtualKey(
  db: Db,
  principal: Principal,
  address: ProviderAddress,
  body: UpdateVirtualKeyInput,
  rules: { secrets: SecretCipher; now: Date },
): Promise<ProviderRow> {
  const row = onlyVirtualKeys(await managedProvider(db, principal, address, 'update', KIND), address);
  const updated = await updateProviderRow(db, row.id, {
    ...providerChanges(body, rules.now),
    modelConfig: legacyModelConfig(body, row.modelConfig),
    ...(body.secret_mappings !== undefined ? { secretMappings: body.secret_mappings } : {}),
  });
  if (!updated) throw providerNotFound(address.idOrSlug, KIND);
  const stored = body.key === undefined ? undefined : await findIntegrationById(db, row.integrationId);
  const credential = sealedKey(body.key, rules.secrets, stored && { sealedKey: stored.sealedKey, maskedKey: stored.maskedKey });
  if (credential || body.name !== undefined) {
    await updateVirtualKeyIntegration(db, row.integrationId, { ...credential, ...(body.name !== undefined ? { name: body.name } : {}) });
  }
  return updated;
}

export async function deleteVirtualKey(db: Db, principal: Principal, address: ProviderAddress): Promise<ProviderRow> {
  const row = onlyVirtualKeys(await managedProvider(db, principal, address, 'delete', KIND), address);
  return archiveProvider(db, row, () => providerNotFound(address.idOrSlug, KIND));
}
