/**
 * API key secrets. A secret is 32 random bytes (base64url) behind a short prefix; only its SHA-256 is stored.
 * A fast hash is right here: the secret has 256 bits of entropy, so there is nothing to brute-force, and the
 * look-up must be a single indexed equality on the hot path.
 */
import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'gw_';

export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(secret: string): string {
  // one-shot hash: no Hash object per call (this runs on every request)
  return hash('sha256', secret, 'hex');
}

/** `gw_Xk*******S4`: enough to recognise a key in a list, never enough to use it. */
export function maskApiKey(secret: string): string {
  const head = secret.slice(0, Math.min(5, Math.floor(secret.length / 4)));
  const tail = secret.slice(-2);
  return `${head}*******${tail}`;
}
