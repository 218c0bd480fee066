/** Updates and deletes (archives) an integration the caller manages. */
import type { Principal } from '../../core/context.ts';
import { isSealed, type SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { updateIntegrationRow, type IntegrationRow, type NewIntegrationRow } from '../../storage/repositories/integrations.ts';
import { integrationNotFound, managedIntegration } from './access.ts';
import { checkConfigurationRules, storableConfigurations, type IntegrationRules, type StoredConfigurations } from './configurations.ts';
import { storedSecretMappings } from '../providers/secret-mappings.ts';
import { sealProviderKey } from './credentials.ts';
import { checkSecretMappings } from './definition.ts';
import type { UpdateIntegrationInput } from './inputs.ts';

/**
 * A PUT replaces what it names: `configurations` as a whole (a field left out is removed), `secret_mappings` as a
 * whole list. A secret sent back as it is shown (`********`, or the key's masked form) keeps the stored value, so
 * a GET's answer can be edited and sent back without typing the secrets again.
 */
export async function updateIntegration(
  db: Db,
  principal: Principal,
  idOrSlug: string,
  body: UpdateIntegrationInput,
  rules: IntegrationRules,
  cipher: SecretCipher,
): Promise<IntegrationRow> {
  const row = await managedIntegration(db, principal, idOrSlug, 'update');
  const changes: Partial<NewIntegrationRow> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.key !== undefined) Object.assign(changes, sealProviderKey(body.key, cipher, { sealedKey: row.sealedKey, maskedKey: row.maskedKey }));
  if (body.configurations !== undefined) {
    changes.configurations = await storableConfigurations(body.configurations, row.aiProviderId, rules, cipher, row.configurations as StoredConfigurations);
  }
  if (body.secret_mappings !== undefined) changes.secretMappings = checkSecretMappings(body.secret_mappings, row.aiProviderId, rules);
  if (body.pricing_adjustments !== undefined) changes.pricingAdjustments = body.pricing_adjustments;
  checkConfigurationRules(
    row.aiProviderId,
    {
      configurations: changes.configurations ?? (row.configurations as StoredConfigurations),
      mappedFields: storedSecretMappings(changes.secretMappings ?? row.secretMappings).map((mapping) => mapping.target_field),
      hasKey: (changes.sealedKey ?? row.sealedKey) !== null,
    },
    rules,
  );
  const updated = await updateIntegrationRow(db, row.id, changes);
  if (!updated) throw integrationNotFound(idOrSlug);
  return updated;
}

/**
 * DELETE archives: the row stays for the record (and for the request log's integration ids), but the integration
 * is no longer found or listed, and the providers on it stop resolving (resolution reads active integrations only).
 * Its credentials go: a deleted key is not kept, sealed or not.
 */
export async function deleteIntegration(db: Db, principal: Principal, idOrSlug: string): Promise<IntegrationRow> {
  const row = await managedIntegration(db, principal, idOrSlug, 'delete');
  const settings = Object.fromEntries(Object.entries(row.configurations).filter(([, value]) => !isSealed(value)));
  const archived = await updateIntegrationRow(db, row.id, { status: 'archived', sealedKey: null, configurations: settings });
  if (!archived) throw integrationNotFound(idOrSlug);
  return archived;
}
