/**
 * Saved providers for the hot path: `@slug` (x-gateway-provider, a model string, a config target) and
 * x-gateway-virtual-key resolved once to the provider, its integration and the opened credential, then held in
 * process, never read from the database per request. Every node drops its copies when providers or virtual keys
 * change (`providers.changed`, announced here) and when integrations change (`integrations.changed`, announced by
 * the integrations group), so a rotated key is the one the next request sends (src/kv/invalidated-cache.ts).
 */
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../core/errors.ts';
import { createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import { isSealed, type SecretCipher } from '../../secrets/cipher.ts';
import type { Db } from '../../storage/database.ts';
import { loadSavedProviderRows, type SavedProviderRows } from '../../storage/repositories/providers.ts';
import type { RateLimit, UsageLimit } from '../limits.ts';
import { workspaceMayUse } from './integration-access.ts';
import { storedSecretMappings, type SecretMapping } from './secret-mappings.ts';

export const PROVIDERS_CHANGED = 'providers.changed';
export const INTEGRATIONS_CHANGED = 'integrations.changed';

/** What the limits steps and the request log need to know about the saved provider a request used. */
export interface SavedProviderRef {
  id: string;
  slug: string;
  organisationId: string;
  workspaceId: string;
  integrationId: string;
  isVirtualKey: boolean;
  rateLimits: readonly RateLimit[] | null;
  usageLimits: UsageLimit | null;
  /** when `reset_usage` last restarted its usage count */
  usageResetAt: Date | null;
  expiresAt: Date | null;
}

export interface SavedProvider {
  ref: SavedProviderRef;
  integration: {
    slug: string;
    /** the provider name in the registry: which adapter serves it */
    aiProviderId: string;
    /** false once the integration is archived */
    active: boolean;
    /** whether the provider's workspace may use the integration (integration-access.ts) */
    usable: boolean;
  };
  /** the integration's key, opened; held in this process's memory only */
  apiKey: string | undefined;
  /** the integration's settings, sealed values opened */
  configurations: Readonly<Record<string, unknown>>;
  /** a virtual key's model settings (deployments and the like) */
  modelConfig: Readonly<Record<string, unknown>>;
  /** the integration's, then the provider's (a provider's mapping of a field wins) */
  secretMappings: readonly SecretMapping[];
}

export interface SavedProviders {
  /** The active provider `slug` of the workspace; undefined when it has none. */
  resolve(organisationId: string, workspaceId: string, slug: string): Promise<SavedProvider | undefined>;
  /** Drops this node's copies now and tells every other node; call after the change is committed. */
  invalidate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * For a node that does not hold the cache itself (the admin routes): every node drops its copies. Waits (at most
 * `timeoutMs`) until the announcement has come back to this node: its own cache listened first on the same channel,
 * so once the echo arrives this node's copies are gone too, and the admin call's very next request sees the change.
 */
export async function announceProviderChange(kv: KvStore, timeoutMs = 1000): Promise<void> {
  const nonce = randomUUID();
  let heard: () => void = () => {};
  const echoed = new Promise<void>((resolve) => (heard = resolve));
  const unsubscribe = await kv.subscribe(PROVIDERS_CHANGED, (message) => {
    if (message === nonce) heard();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await kv.publish(PROVIDERS_CHANGED, nonce);
    await Promise.race([echoed, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  } finally {
    clearTimeout(timer);
    await unsubscribe();
  }
}

function openValue(value: unknown, secrets: SecretCipher, depth: number): unknown {
  if (isSealed(value)) return secrets.open(value);
  if (depth > 20 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => openValue(item, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, openValue(inner, secrets, depth + 1)]));
}

function savedProvider(rows: SavedProviderRows, secrets: SecretCipher): SavedProvider {
  const { provider, integration, access } = rows;
  let apiKey: string | undefined;
  let configurations: Record<string, unknown>;
  try {
    apiKey = integration.sealedKey ? secrets.open(integration.sealedKey) : undefined;
    configurations = openValue(integration.configurations, secrets, 0) as Record<string, unknown>;
  } catch {
    // a misconfigured node, not a bad request: say which setting to look at instead of a bare 500
    throw new GatewayError(
      500,
      'server_error',
      `The credentials of integration "${integration.slug}" cannot be opened with this node's encryption key; every node must share GATEWAY_ENCRYPTION_KEY.`,
      { code: 'secret_unreadable' },
    );
  }
  return {
    ref: {
      id: provider.id,
      slug: provider.slug,
      organisationId: provider.organisationId,
      workspaceId: provider.workspaceId,
      integrationId: integration.id,
      isVirtualKey: provider.isVirtualKey,
      // both stored only through the admin API's schemas (RateLimits, UsageLimits)
      rateLimits: provider.rateLimits as RateLimit[] | null,
      usageLimits: provider.usageLimits as UsageLimit | null,
      usageResetAt: provider.usageResetAt,
      expiresAt: provider.expiresAt,
    },
    integration: {
      slug: integration.slug,
      aiProviderId: integration.aiProviderId,
      active: integration.status === 'active',
      usable: workspaceMayUse(integration, access, provider.workspaceId),
    },
    apiKey,
    configurations,
    modelConfig: provider.modelConfig,
    secretMappings: [...storedSecretMappings(integration.secretMappings), ...storedSecretMappings(provider.secretMappings)],
  };
}

export async function createSavedProviders(db: Db, kv: KvStore, options: { secrets: SecretCipher; ttlMs?: number }): Promise<SavedProviders> {
  const cache = await createInvalidatedCache<SavedProvider | undefined>(kv, PROVIDERS_CHANGED, options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs });
  // an integration change makes every held record unreachable (its key carries the generation); a load that started
  // before the change is stored under the old generation, so it is never served either
  let integrationsGeneration = 0;
  const stopListening = await kv.subscribe(INTEGRATIONS_CHANGED, () => {
    integrationsGeneration += 1;
  });
  return {
    resolve(organisationId, workspaceId, slug) {
      const key = `${integrationsGeneration}\u0000${organisationId}\u0000${workspaceId}\u0000${slug}`;
      return cache.get(key, async () => {
        const rows = await loadSavedProviderRows(db, organisationId, workspaceId, slug);
        return rows ? savedProvider(rows, options.secrets) : undefined;
      });
    },
    invalidate: () => cache.invalidate(),
    async close() {
      await stopListening();
      await cache.close();
    },
  };
}
