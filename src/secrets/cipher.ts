/**
 * Secrets at rest: AES-256-GCM with a fresh 96-bit IV per value and the 128-bit tag kept with it, so a value
 * that was altered in the database fails to open instead of decrypting to garbage. A sealed value is a string
 * `enc:v1:<base64(iv | tag | ciphertext)>`, so it fits any text or JSON column and is recognisable on sight.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretCipher {
  seal(plaintext: string): string;
  /** Throws when the value was not sealed with this key or was altered. */
  open(sealed: string): string;
}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function createSecretCipher(key: Buffer): SecretCipher {
  if (key.length !== 32) throw new RangeError('the encryption key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed) {
      if (!isSealed(sealed)) throw new Error('not a sealed secret');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('a sealed secret is too short');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
