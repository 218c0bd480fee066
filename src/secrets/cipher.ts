/**
 * Secrets at rest: AES-256-GCM with a fresh 96-bit IV per value and the 128-bit tag kept with it, so a value
 * that was altered in the database fails to open instead of decrypting to garbage.
 *
 * A sealed value is a string that fits any text or JSON column and is recognisable on sight:
 * - `enc:v2:<key id>:<base64(iv | tag | ciphertext)>`, what seal() writes. The key id (8 hex characters derived
 *   from the key, never the key itself) says which key opens it, so the key can be rotated: the current key seals,
 *   and previous keys (GATEWAY_ENCRYPTION_KEYS_PREVIOUS) still open what they sealed.
 * - `enc:v1:<base64(iv | tag | ciphertext)>`, what earlier versions wrote, without a key id: still opened, by
 *   trying the current key and then each previous one (the GCM tag tells which one fits).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const LEGACY_PREFIX = 'enc:v1:';
const PREFIX = 'enc:v2:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[0-9a-f]{8}$/;

export interface SecretCipher {
  /** the id of the key that seals: part of every value sealed now */
  readonly keyId: string;
  seal(plaintext: string): string;
  /** Throws when no key this cipher holds sealed the value, or the value was altered. */
  open(sealed: string): string;
  /** The value sealed with the current key (opened and sealed again), or the same value when it already is. */
  reseal(sealed: string): string;
}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && (value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX));
}

/** A key's id: public, stable, and says nothing usable about the key (a truncated hash under its own label). */
export function encryptionKeyId(key: Buffer): string {
  return createHash('sha256').update('ai-gateway encryption key id v1\u0000').update(key).digest('hex').slice(0, 8);
}

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new RangeError('the encryption key must be 32 bytes');
}

function sealWith(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function openWith(key: Buffer, raw: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

function rawBytes(body: string): Buffer {
  const raw = Buffer.from(body, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('a sealed secret is too short');
  return raw;
}

/** `key` seals and opens; each of `previous` only opens (a key being rotated out). */
export function createSecretCipher(key: Buffer, previous: readonly Buffer[] = []): SecretCipher {
  const keys = [key, ...previous];
  keys.forEach(checkKey);
  const byId = new Map<string, Buffer>();
  for (const each of keys) {
    const id = encryptionKeyId(each);
    const known = byId.get(id);
    if (known && !known.equals(each)) throw new RangeError(`two encryption keys share the key id ${id}; generate another key`);
    if (!known) byId.set(id, each);
  }
  const keyId = encryptionKeyId(key);

  const open = (sealed: string): string => {
    if (sealed.startsWith(PREFIX)) {
      const rest = sealed.slice(PREFIX.length);
      const colon = rest.indexOf(':');
      const id = colon === -1 ? '' : rest.slice(0, colon);
      if (!KEY_ID.test(id)) throw new Error('a sealed secret without a valid key id');
      const raw = rawBytes(rest.slice(colon + 1));
      const opener = byId.get(id);
      // the message names the id (public) so an operator knows which key to put back in the previous keys
      if (!opener) throw new Error(`a secret sealed with key ${id}, which this node does not hold (GATEWAY_ENCRYPTION_KEY, GATEWAY_ENCRYPTION_KEYS_PREVIOUS)`);
      return openWith(opener, raw);
    }
    if (!sealed.startsWith(LEGACY_PREFIX)) throw new Error('not a sealed secret');
    const raw = rawBytes(sealed.slice(LEGACY_PREFIX.length));
    let failure: unknown;
    for (const candidate of keys) {
      try {
        return openWith(candidate, raw);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  };

  return {
    keyId,
    seal: (plaintext) => `${PREFIX}${keyId}:${sealWith(key, plaintext)}`,
    open,
    reseal(sealed) {
      if (sealed.startsWith(`${PREFIX}${keyId}:`)) return sealed;
      return `${PREFIX}${keyId}:${sealWith(key, open(sealed))}`;
    },
  };
}
