/**
 * The credentials inside a saved config (a target's `api_key`, AWS secret keys and session tokens, a Vertex
 * service account, a webhook check's Authorization header...) are sealed before the config is stored, opened
 * when a request uses it, and never shown back: the admin API returns them masked.
 *
 * A field holds a secret when its name says so (the audit log's rule, src/domain/audit/mask.ts) or it is one of
 * the config's credential fields whose name does not. `override_params` and condition queries are request
 * content, not credentials, and are left as written.
 */
import { isSensitiveName, MASK } from '../domain/audit/mask.ts';
import { isSealed, type SecretCipher } from './cipher.ts';

const ALSO_SECRET = new Set(['vertex_service_account_json']);
const NOT_CREDENTIALS = new Set(['override_params', 'query']);
const MAX_DEPTH = 32;

function isSecretField(name: string): boolean {
  return ALSO_SECRET.has(name) || isSensitiveName(name);
}

function mapSecrets(value: unknown, change: (secret: string) => string, depth = 0): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => mapSecrets(item, change, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if (NOT_CREDENTIALS.has(name)) out[name] = inner;
    else if (typeof inner === 'string' && isSecretField(name)) out[name] = change(inner);
    else out[name] = mapSecrets(inner, change, depth + 1);
  }
  return out;
}

/** A copy with every credential sealed (values sealed already are kept as they are). */
export function sealConfigSecrets<T>(config: T, cipher: SecretCipher): T {
  return mapSecrets(config, (secret) => (isSealed(secret) ? secret : cipher.seal(secret))) as T;
}

/** A copy with every sealed credential opened, as a request needs it. */
export function openConfigSecrets<T>(config: T, cipher: SecretCipher): T {
  return mapSecrets(config, (secret) => (isSealed(secret) ? cipher.open(secret) : secret)) as T;
}

/** A copy for display: every credential replaced by the mask. */
export function maskConfigSecrets<T>(config: T): T {
  return mapSecrets(config, () => MASK) as T;
}

/**
 * The path of a credential sent back masked (a GET's answer PUT back unchanged), so the caller gets a 400 naming
 * it instead of a config whose key is eight asterisks.
 */
export function maskedSecretPath(config: unknown, path = 'config', depth = 0): string | undefined {
  if (depth > MAX_DEPTH || typeof config !== 'object' || config === null) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(config) ? config.map((item, index) => [`[${index}]`, item]) : Object.entries(config);
  for (const [name, inner] of entries) {
    const at = name.startsWith('[') ? `${path}${name}` : `${path}.${name}`;
    if (NOT_CREDENTIALS.has(name)) continue;
    if (inner === MASK && isSecretField(name)) return at;
    const found = maskedSecretPath(inner, at, depth + 1);
    if (found) return found;
  }
  return undefined;
}
