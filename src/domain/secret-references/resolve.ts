/**
 * Secret mappings resolved for the request pipeline: `{ secret_reference_id, secret_key? }` -> the value.
 * - The reference's row is held in process and dropped on every node when a reference changes (kv pub/sub), so a
 *   request does no database query the cache can answer.
 * - The caller's workspace must be allowed to use the reference (allow_all_workspaces or allowed_workspaces): a
 *   403 otherwise. An unknown reference is a 400 naming it.
 * - A fetched value is held in memory for a short TTL (60 s by default, a bounded LRU keyed by the reference and
 *   its last change, so an update is seen at once), never stored and never logged. Concurrent misses share one
 *   fetch; a failed fetch is not held, so the next request tries again.
 * - A manager's failure is a 4xx/502 naming the reference (src/secrets/managers/errors.ts), never the value.
 */
import { boundedLru } from '../../core/lru.ts';
import { readEnvironmentSecret } from '../../config/environment-secrets.ts';
import { badRequest, forbidden, invalidParam } from '../../core/errors.ts';
import { createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import type { EnvironmentReader } from '../../secrets/managers/environment.ts';
import { fetchSecret } from '../../secrets/managers/fetch-secret.ts';
import { createManagerHttp, type ManagerHttp } from '../../secrets/managers/http.ts';
import { pickSecretValue } from '../../secrets/managers/pick-value.ts';
import { createTokenCache } from '../../secrets/managers/token-cache.ts';
import type { RawSecret } from '../../secrets/managers/types.ts';
import type { Db } from '../../storage/database.ts';
import { findSecretReference, type SecretReferenceRow } from '../../storage/repositories/secret-references.ts';
import type { Allowlist, LookupAll } from '../../upstream/ssrf-guard.ts';
import { usableByWorkspace } from './access.ts';
import { SECRET_REFERENCES_CHANGED } from './changes.ts';
import { openSource } from './sealed-source.ts';

export interface SecretMapping {
  /** the reference's id or slug */
  secret_reference_id: string;
  /** picks a key of a JSON secret; when absent, the reference's own secret_key */
  secret_key?: string | null;
}

export type SecretMappingResolver = (organisationId: string, workspaceId: string, mapping: SecretMapping) => Promise<string>;

export type ClosableSecretMappingResolver = SecretMappingResolver & { close(): Promise<void> };

export interface SecretMappingResolverDeps {
  db: Db;
  kv: KvStore;
  cipher: SecretCipher;
  /** GATEWAY_CUSTOM_HOST_ALLOWLIST: what a manager's private address needs */
  allowlist: Allowlist;
  lookup?: LookupAll;
  /** `env` references; the config module's accessor by default */
  environment?: EnvironmentReader;
  /** epoch milliseconds */
  now?: () => number;
  /** how long a fetched value is held; 60 s by default */
  valueTtlMs?: number;
  /** how many values are held at most; 1,000 by default */
  maxValues?: number;
  /** the managers' HTTP client; one of its own (closed with the resolver) by default */
  http?: ManagerHttp;
}

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,255}$/;

export async function createSecretMappingResolver(deps: SecretMappingResolverDeps): Promise<ClosableSecretMappingResolver> {
  const now = deps.now ?? Date.now;
  const environment = deps.environment ?? ((name: string) => readEnvironmentSecret(name));
  const http = deps.http ?? createManagerHttp({ allowlist: deps.allowlist, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  const tokens = createTokenCache({ now });
  const references = await createInvalidatedCache<SecretReferenceRow | undefined>(deps.kv, SECRET_REFERENCES_CHANGED);
  // boxed: the cache holds a string or a Vault map; perf: the TTL runs on the injected clock
  const values = boundedLru<string, { value: RawSecret }>(deps.maxValues ?? 1000, {
    ttl: deps.valueTtlMs ?? 60_000,
    ttlResolution: 0,
    perf: { now },
  });
  const inflight = new Map<string, Promise<RawSecret>>();

  function rawValue(row: SecretReferenceRow, label: string): Promise<RawSecret> {
    const key = `${row.id}\u0000${row.updatedAt.getTime()}`;
    const held = values.get(key);
    if (held) return Promise.resolve(held.value);
    const pending = inflight.get(key);
    if (pending) return pending;
    const fetching = Promise.resolve().then(() => fetchSecret(openSource(deps.cipher, row), row.secretPath, { http, tokens, label, now, environment }));
    inflight.set(key, fetching);
    fetching
      .then((value) => void values.set(key, { value }), () => undefined)
      .finally(() => inflight.delete(key));
    return fetching;
  }

  const resolve: SecretMappingResolver = async (organisationId, workspaceId, mapping) => {
    const idOrSlug = mapping.secret_reference_id;
    if (typeof idOrSlug !== 'string' || !ID_OR_SLUG.test(idOrSlug)) {
      throw invalidParam('secret_reference_id', 'secret_reference_id must be a secret reference UUID or slug.');
    }
    const row = await references.get(`${organisationId}\u0000${idOrSlug}`, () => findSecretReference(deps.db, organisationId, idOrSlug));
    if (!row) throw badRequest(`Secret reference "${idOrSlug}" not found.`, 'secret_reference_not_found');
    if (!usableByWorkspace(row, workspaceId)) {
      throw forbidden(`Secret reference "${row.slug}" may not be used by this workspace.`, 'secret_reference_not_allowed');
    }
    const label = `secret reference "${row.slug}"`;
    const raw = await rawValue(row, label);
    return pickSecretValue(raw, mapping.secret_key ? mapping.secret_key : row.secretKey, label);
  };

  return Object.assign(resolve, {
    async close() {
      await references.close();
      if (!deps.http) await http.close();
    },
  });
}
