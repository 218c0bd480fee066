/**
 * Creates an integration: an organisation one (admin keys, when no workspace is named) or a workspace one (a
 * workspace's managers, or admin keys naming the workspace). The provider must be one the registry knows and the
 * configurations what it reads; the key and every secret configuration are sealed before they are stored.
 *
 * `create_default_provider` (default true) also creates a provider `@<default_provider_slug or slug>` where the
 * integration may be used: in its workspace, or, for an organisation integration, in the caller's workspace (an
 * admin key's default workspace), which the integration is then enabled for. With `false` an organisation
 * integration is enabled for no workspace until PUT /integrations/{slug}/workspaces says so.
 * Anything wrong leaves nothing behind (the caller's transaction).
 */
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import {
  insertIntegration,
  integrationSlugTaken,
  upsertIntegrationWorkspace,
  type IntegrationRow,
} from '../../storage/repositories/integrations.ts';
import { isUniqueViolation } from '../../storage/repositories/workspaces.ts';
import { actorId } from '../guardrails/access.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import { targetWorkspace } from '../workspaces/access.ts';
import { requireIntegrationManager } from './access.ts';
import { checkConfigurationRules, storableConfigurations, type IntegrationRules } from './configurations.ts';
import { sealProviderKey } from './credentials.ts';
import { ensureDefaultProvider, type DefaultProvider } from './default-provider.ts';
import { checkSecretMappings } from './definition.ts';
import type { CreateIntegrationInput } from './inputs.ts';

/** `<provider>-<name, slugified, at most 20 chars>-<6 hex>`: readable where it matters, in `@slug`. */
export function generateIntegrationSlug(providerId: string, name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug(providerId, name, 20, 'integration', randomHex);
}

export function checkProvider(providerId: string, rules: IntegrationRules): void {
  if (!rules.isKnownProvider(providerId)) {
    throw invalidParam('ai_provider_id', `ai_provider_id "${providerId}" is not a provider this gateway knows.`, 'unknown_provider');
  }
}

export interface CreatedIntegration {
  row: IntegrationRow;
  defaultProvider: DefaultProvider | undefined;
}

export async function createIntegration(
  db: Db,
  principal: Principal,
  body: CreateIntegrationInput,
  rules: IntegrationRules,
  cipher: SecretCipher,
): Promise<CreatedIntegration> {
  const workspaceId = await targetWorkspace(db, principal, body.workspace_id);
  requireIntegrationManager(principal, workspaceId, 'create');
  checkProvider(body.ai_provider_id, rules);
  const configurations = await storableConfigurations(body.configurations ?? {}, body.ai_provider_id, rules, cipher);
  const secretMappings = checkSecretMappings(body.secret_mappings ?? [], body.ai_provider_id, rules);
  const key = body.key === undefined ? { sealedKey: null, maskedKey: null } : sealProviderKey(body.key, cipher);
  checkConfigurationRules(body.ai_provider_id, { configurations, mappedFields: secretMappings.map((mapping) => mapping.target_field), hasKey: key.sealedKey !== null }, rules);
  const organisationId = principal.organisationId;
  const slug = await chooseSlug({
    requested: body.slug,
    generate: () => generateIntegrationSlug(body.ai_provider_id, body.name),
    taken: (candidate) => integrationSlugTaken(db, organisationId, candidate),
    resource: 'an integration',
    conflictCode: 'integration_slug_taken',
  });
  const actor = actorId(principal);
  let row: IntegrationRow;
  try {
    row = await insertIntegration(db, {
      organisationId,
      workspaceId,
      slug,
      name: body.name,
      description: body.description ?? null,
      aiProviderId: body.ai_provider_id,
      ...key,
      configurations,
      secretMappings,
      pricingAdjustments: body.pricing_adjustments ?? null,
      createdBy: actor,
    });
  } catch (error) {
    // a concurrent create took the slug between the check and the insert (or an archived one holds it)
    if (isUniqueViolation(error)) throw conflict(`An integration with slug "${slug}" already exists.`, 'integration_slug_taken');
    throw error;
  }
  if (body.create_default_provider === false) return { row, defaultProvider: undefined };
  const home = workspaceId ?? principal.workspaceId;
  if (workspaceId === null) await upsertIntegrationWorkspace(db, { integrationId: row.id, workspaceId: home, enabled: true });
  const defaultProvider = await ensureDefaultProvider(db, row, home, body.default_provider_slug ?? row.slug, { actor, param: 'default_provider_slug' });
  return { row, defaultProvider };
}
