/**
 * Signed download URLs of log exports: `GET /downloads/log-exports/{id}?format=&expires=&signature=` needs no API
 * key, so the URL itself is the credential. The signature is HMAC-SHA256 over `id`, `format` and `expires` with a
 * key derived from the gateway's encryption key, so every node of a deployment (same key) accepts every node's
 * URLs, and a URL expires 15 minutes after it was made.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SecretCipher } from '../../secrets/cipher.ts';

export const DOWNLOAD_TTL_SECONDS = 15 * 60;
export const DOWNLOAD_FORMATS = ['jsonl', 'csv'] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

export interface DownloadSigner {
  sign(exportId: string, format: DownloadFormat, expires: number): string;
  verify(exportId: string, format: DownloadFormat, expires: number, signature: string): boolean;
}

function payload(exportId: string, format: DownloadFormat, expires: number): string {
  return `log-export-download\u0000${exportId.toLowerCase()}\u0000${format}\u0000${expires}`;
}

/** HMAC-SHA256 under `key`, a key derived for this use only (HKDF of the encryption key, info `log-export-downloads`). */
export function hmacSigner(key: Buffer): DownloadSigner {
  const mac = (text: string) => createHmac('sha256', key).update(text).digest();
  return {
    sign: (exportId, format, expires) => mac(payload(exportId, format, expires)).toString('base64url'),
    verify(exportId, format, expires, signature) {
      const expected = mac(payload(exportId, format, expires));
      const given = /^[A-Za-z0-9_-]{43}$/.test(signature) ? Buffer.from(signature, 'base64url') : Buffer.alloc(0);
      // the last character carries 4 unused bits: only the canonical spelling passes
      return given.length === expected.length && given.toString('base64url') === signature && timingSafeEqual(given, expected);
    },
  };
}

/**
 * The same guarantee without a raw key: the signature is the payload sealed by the secret cipher (AES-256-GCM, whose
 * tag authenticates it), which every node holding the encryption key opens. Used while the gateway hands the app
 * no signing key of its own (AppDeps.downloadSigningKey).
 */
export function sealedSigner(cipher: SecretCipher): DownloadSigner {
  return {
    sign: (exportId, format, expires) => Buffer.from(cipher.seal(payload(exportId, format, expires)), 'utf8').toString('base64url'),
    verify(exportId, format, expires, signature) {
      if (!/^[A-Za-z0-9_-]{1,400}$/.test(signature)) return false;
      const sealed = Buffer.from(signature, 'base64url').toString('utf8');
      // one spelling per token: base64 decoders skip stray characters and unused bits, which must not pass
      const match = SEALED.exec(sealed);
      if (!match || Buffer.from(sealed, 'utf8').toString('base64url') !== signature || Buffer.from(match[1]!, 'base64').toString('base64') !== match[1]) return false;
      try {
        return cipher.open(sealed) === payload(exportId, format, expires);
      } catch {
        return false;
      }
    },
  };
}

/** what SecretCipher.seal writes: `enc:v2:<key id>:<base64>` */
const SEALED = /^enc:v2:[0-9a-f]{8}:([A-Za-z0-9+/]+={0,2})$/;

export function isExpired(expires: number, nowMs: number): boolean {
  return expires * 1000 < nowMs;
}
