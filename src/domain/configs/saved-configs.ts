/**
 * Saved configs for the hot path: `x-gateway-config: <id or slug>` (and a workspace's default config) resolved to
 * a parsed Config once, then held in process, never read from the database per request. A create, update or
 * delete drops every node's copies at once (src/kv/invalidated-cache.ts), so the next request sees the new version.
 */
import type { SecretCipher } from '../../secrets/cipher.ts';
import { openConfigSecrets } from '../../secrets/config-secrets.ts';
import { loadConfig, loadDefaultConfig } from './load-config.ts';
import { announceInvalidation, createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import type { CurrentConfig } from '../../storage/repositories/configs.ts';
import type { Principal } from '../../core/context.ts';
import { badRequest, forbidden, GatewayError, invalidParam } from '../../core/errors.ts';
import { parseConfig, type Config, type ParseConfigOptions, type ParsedConfig } from '../../routing/config-schema.ts';

const CHANGED = 'configs.changed';
const HEADER = 'x-gateway-config';

export interface SavedConfig {
  id: string;
  /** the version that was current when it was loaded: what the request log records */
  versionId: string;
  config: Config;
}

export interface SavedConfigs {
  /** A config the caller's workspace may use (its own or organisation-wide) by id or slug; undefined if none. */
  resolve(organisationId: string, workspaceId: string, idOrSlug: string): Promise<SavedConfig | undefined>;
  /** The workspace's default config (`isDefault: 1`), if it has one. */
  workspaceDefault(organisationId: string, workspaceId: string): Promise<SavedConfig | undefined>;
  /** Drops this node's copies now and tells every other node; call after the change is committed. */
  invalidate(): Promise<void>;
  close(): Promise<void>;
}

/** For a node that does not hold the cache itself: every node (this one included) drops its copies. */
export async function announceConfigChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

export async function createSavedConfigs(
  db: Db,
  kv: KvStore,
  options: { ttlMs?: number; parse?: ParseConfigOptions; secrets: SecretCipher },
): Promise<SavedConfigs> {
  const cache = await createInvalidatedCache<SavedConfig | undefined>(kv, CHANGED, options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs });
  const rules = options.parse ?? {};
  // parsed once per load: the stored object passed the same schema when it was saved
  const parsed = (found: CurrentConfig | undefined): SavedConfig | undefined => {
    if (!found) return undefined;
    // credentials are sealed at rest; a request needs them opened (held opened in this process's memory only)
    let opened: Record<string, unknown>;
    try {
      opened = openConfigSecrets(found.config, options.secrets);
    } catch {
      // a misconfigured node, not a bad request: say which setting to look at instead of a bare 500
      throw new GatewayError(500, 'server_error', `The credentials of saved config ${found.id} cannot be opened with this node's encryption key; every node must share GATEWAY_ENCRYPTION_KEY.`, { code: 'secret_unreadable' });
    }
    const result = parseConfig(opened, rules);
    if (result.kind !== 'inline') throw new Error(`saved config ${found.id} holds a reference, not a config object`);
    return { id: found.id, versionId: found.versionId, config: result.config };
  };
  return {
    resolve: (organisationId, workspaceId, idOrSlug) =>
      cache.get(`ref\u0000${organisationId}\u0000${workspaceId}\u0000${idOrSlug}`, async () => parsed(await loadConfig(db, organisationId, workspaceId, idOrSlug))),
    workspaceDefault: (organisationId, workspaceId) =>
      cache.get(`default\u0000${organisationId}\u0000${workspaceId}`, async () => parsed(await loadDefaultConfig(db, organisationId, workspaceId))),
    invalidate: () => cache.invalidate(),
    close: () => cache.close(),
  };
}

/** Where a request's config came from: given inline, or a saved config at one version. */
export interface ResolvedConfig {
  config: Config;
  saved: { id: string; versionId: string } | undefined;
}

/**
 * The config a parsed x-gateway-config stands for. A reference that names no config the caller's workspace may use
 * (unknown, archived, another workspace's) is a 400 naming the header, before any provider is called.
 */
export async function resolveConfig(
  parsed: ParsedConfig,
  caller: { organisationId: string; workspaceId: string } | undefined,
  savedConfigs: SavedConfigs | undefined,
): Promise<ResolvedConfig> {
  if (parsed.kind === 'inline') return { config: parsed.config, saved: undefined };
  const found = savedConfigs && caller ? await savedConfigs.resolve(caller.organisationId, caller.workspaceId, parsed.id) : undefined;
  if (!found) {
    throw invalidParam(HEADER, `${HEADER} names no config "${parsed.id}" that this workspace can use.`, 'config_not_found');
  }
  return { config: found.config, saved: { id: found.id, versionId: found.versionId } };
}

/**
 * The config a request runs under: the one x-gateway-config gives (inline, or saved and named by id or slug), else
 * its API key's default (`defaults.config_id`), else its workspace's default config; undefined when there is none.
 * A key with `allow_config_override: false` refuses a header config (403): its requests keep to its own.
 * Every saved config comes from the in-process cache, so none of this reads the database per request.
 */
export async function configForRequest(
  header: string | undefined,
  principal: Principal | undefined,
  savedConfigs: SavedConfigs | undefined,
  rules: ParseConfigOptions,
): Promise<ResolvedConfig | undefined> {
  const keyDefault = principal?.defaultConfig;
  if (header !== undefined) {
    if (keyDefault && !keyDefault.allowOverride) {
      throw forbidden(`This API key always uses its default config "${keyDefault.id}" (allow_config_override is false): send no ${HEADER}.`, 'config_override_not_allowed');
    }
    return resolveConfig(parseConfig(header, rules), principal, savedConfigs);
  }
  if (!principal || !savedConfigs) return undefined;
  if (keyDefault) {
    const found = await savedConfigs.resolve(principal.organisationId, principal.workspaceId, keyDefault.id);
    // routing the request elsewhere than the key's owner meant would be worse than refusing it
    if (!found) throw badRequest(`This API key's default config "${keyDefault.id}" (defaults.config_id) does not exist or is not usable by its workspace.`, 'config_not_found', 'defaults.config_id');
    return { config: found.config, saved: { id: found.id, versionId: found.versionId } };
  }
  const found = await savedConfigs.workspaceDefault(principal.organisationId, principal.workspaceId);
  return found ? { config: found.config, saved: { id: found.id, versionId: found.versionId } } : undefined;
}
