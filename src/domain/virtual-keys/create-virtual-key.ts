/**
 * Creates a legacy virtual key (api-surface §3.2): a workspace integration that holds its credential (sealed with
 * the cipher, masked in every read) and a provider row pointing at it, flagged `is_virtual_key`. From then on it is
 * a provider like any other: `x-gateway-virtual-key: <slug>` and `@<slug>` both use it.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { insertVirtualKeyIntegration, type ProviderRow } from '../../storage/repositories/providers.ts';
import { actorId } from '../guardrails/access.ts';
import { sealProviderKey, type SealedKey } from '../integrations/credentials.ts';
import { providerWorkspace, requireProviderManager } from '../providers/access.ts';
import { insertNewProvider } from '../providers/create-provider.ts';
import type { CreateVirtualKeyInput } from './inputs.ts';
import { legacyModelConfig } from './model-config.ts';

export interface VirtualKeyRules {
  /** whether the registry serves a provider of this name */
  isKnownProvider: (name: string) => boolean;
  secrets: SecretCipher;
  now: Date;
}

/**
 * The sealed credential and its mask (as the integrations group stores and shows keys), or nothing: a provider
 * without a key, or one taken from a secret reference. On an update, the key sent back as it is shown keeps the
 * stored one.
 */
export function sealedKey(key: string | undefined, secrets: SecretCipher, stored?: SealedKey): SealedKey | undefined {
  return key === undefined ? undefined : sealProviderKey(key, secrets, stored);
}

export async function createVirtualKey(db: Db, principal: Principal, body: CreateVirtualKeyInput, rules: VirtualKeyRules): Promise<ProviderRow> {
  if (!rules.isKnownProvider(body.provider)) throw invalidParam('provider', `Unknown provider "${body.provider}".`, 'unknown_provider');
  const workspaceId = await providerWorkspace(db, principal, body.workspace_id);
  requireProviderManager(principal, workspaceId, 'create');
  const name = body.name ?? body.provider;
  const integration = await insertVirtualKeyIntegration(db, {
    organisationId: principal.organisationId,
    workspaceId,
    // never shown to the key's users: the virtual key is addressed by its own slug
    slug: `virtual-key-${randomUUID()}`,
    name,
    description: 'The credential of a virtual key.',
    aiProviderId: body.provider,
    ...sealedKey(body.key, rules.secrets),
    createdBy: actorId(principal),
  });
  return insertNewProvider(db, principal, { workspaceId, integration }, { ...body, name }, rules.now, {
    modelConfig: legacyModelConfig(body),
    secretMappings: body.secret_mappings ?? [],
    isVirtualKey: true,
  });
}
