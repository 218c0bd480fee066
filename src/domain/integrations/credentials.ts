/**
 * An integration's credentials: the provider key sealed at rest next to a masked form for display, opened only
 * where a request needs them, and never returned, logged or audited in clear. A change is announced on the kv
 * pub/sub channel `integrations.changed`, so every node drops the credentials it holds in memory.
 */
import { announceInvalidation } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import { isSealed, type SecretCipher } from '../../secrets/cipher.ts';
import { MASK } from '../../secrets/mask.ts';
import { invalidParam } from '../../core/errors.ts';

/** The channel the providers' in-process caches listen on (kv/invalidated-cache.ts). */
export const INTEGRATIONS_CHANGED = 'integrations.changed';

/** Tells every node (this one included) that integrations changed: their cached credentials are stale. */
export async function announceIntegrationChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, INTEGRATIONS_CHANGED);
}

/**
 * `sk-p********wxyz`: enough to tell two keys apart in a list, never enough to use one. A key shorter than 20
 * characters shows nothing of itself (four and four of a short key would be most of it).
 */
export function maskProviderKey(key: string): string {
  return key.length < 20 ? MASK : `${key.slice(0, 4)}${MASK}${key.slice(-4)}`;
}

export interface SealedKey {
  sealedKey: string | null;
  maskedKey: string | null;
}

/**
 * The key as stored. On an update, the key sent back as it is shown (the mask, or the masked form) keeps the stored
 * key, re-sealed with the current encryption key; with no key stored that is a 400 naming `key`.
 */
export function sealProviderKey(key: string, cipher: SecretCipher, stored?: SealedKey): SealedKey {
  if (stored !== undefined && (key === MASK || (stored.maskedKey !== null && key === stored.maskedKey))) {
    if (stored.sealedKey === null) throw invalidParam('key', `key is the mask ${MASK} but no key is stored: send the key itself.`, 'masked_secret');
    return { sealedKey: cipher.reseal(stored.sealedKey), maskedKey: stored.maskedKey };
  }
  return { sealedKey: cipher.seal(key), maskedKey: maskProviderKey(key) };
}

export interface OpenedCredentials {
  key: string | undefined;
  /** every configuration field, secrets opened */
  configurations: Record<string, string>;
}

/**
 * For the request path (the providers group's resolution): the integration's key and configurations opened with
 * this node's cipher. Throws when a value was sealed with a key this node does not hold.
 */
export function openIntegrationCredentials(
  row: { sealedKey: string | null; configurations: Record<string, unknown> },
  cipher: SecretCipher,
): OpenedCredentials {
  const configurations: Record<string, string> = {};
  for (const [name, value] of Object.entries(row.configurations)) {
    if (typeof value !== 'string') continue;
    configurations[name] = isSealed(value) ? cipher.open(value) : value;
  }
  return { key: row.sealedKey === null ? undefined : cipher.open(row.sealedKey), configurations };
}
