/**
 * The credentials inside a saved config (a target's `api_key`, a cloud provider's secret keys, tokens and service
 * accounts, a webhook check's Authorization header...) are sealed before the config is stored, opened when a
 * request uses it, and never shown back: the admin API returns them masked.
 *
 * A field holds a secret when its name says so (the audit log's rule, src/domain/audit/mask.ts) or an adapter
 * declares it secret (src/providers/<vendor>/cloud-settings.ts), whatever its name. `override_params` and
 * condition queries are request content, not credentials, and are left as written.
 */
import { isSensitiveName, MASK } from './mask.ts';
import type { CloudSettings } from '../providers/contract.ts';
import { registeredCloudSettings } from '../providers/registry.ts';
import { isSealed, type SecretCipher } from './cipher.ts';

const NOT_CREDENTIALS = new Set(['override_params', 'query']);
const MAX_DEPTH = 32;

export interface ConfigSecrets {
  /** A copy with every credential sealed (values sealed already are kept as they are). */
  seal<T>(config: T, cipher: SecretCipher): T;
  /** A copy with every sealed credential opened, as a request needs it. */
  open<T>(config: T, cipher: SecretCipher): T;
  /** A copy for display: every credential replaced by the mask. */
  mask<T>(config: T): T;
  /**
   * The path of a credential sent back masked (a GET's answer PUT back unchanged), so the caller gets a 400 naming
   * it instead of a config whose key is eight asterisks.
   */
  maskedPath(config: unknown, path?: string): string | undefined;
}

/** The config fields the declarations mark secret. */
function secretFieldsOf(declarations: readonly CloudSettings[]): ReadonlySet<string> {
  return new Set(declarations.flatMap(({ settings }) => settings.flatMap(({ configField, secret }) => (secret && configField ? [configField] : []))));
}

/** The config credentials, with the secret cloud fields of these declarations among them. */
export function createConfigSecrets(declarations: readonly CloudSettings[]): ConfigSecrets {
  const declared = secretFieldsOf(declarations);
  const isSecretField = (name: string) => declared.has(name) || isSensitiveName(name);

  const mapSecrets = (value: unknown, change: (secret: string) => string, depth = 0): unknown => {
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
  };

  const maskedPath = (config: unknown, path = 'config', depth = 0): string | undefined => {
    if (depth > MAX_DEPTH || typeof config !== 'object' || config === null) return undefined;
    const entries: Array<[string, unknown]> = Array.isArray(config) ? config.map((item, index) => [`[${index}]`, item]) : Object.entries(config);
    for (const [name, inner] of entries) {
      const at = name.startsWith('[') ? `${path}${name}` : `${path}.${name}`;
      if (NOT_CREDENTIALS.has(name)) continue;
      if (inner === MASK && isSecretField(name)) return at;
      const found = maskedPath(inner, at, depth + 1);
      if (found) return found;
    }
    return undefined;
  };

  return {
    seal: (config, cipher) => mapSecrets(config, (secret) => (isSealed(secret) ? secret : cipher.seal(secret))) as typeof config,
    open: (config, cipher) => mapSecrets(config, (secret) => (isSealed(secret) ? cipher.open(secret) : secret)) as typeof config,
    mask: (config) => mapSecrets(config, () => MASK) as typeof config,
    maskedPath: (config, path) => maskedPath(config, path),
  };
}

/** The credentials of a config for the providers this gateway registers, fixed when this module loads. */
const registered = createConfigSecrets(registeredCloudSettings());

export const sealConfigSecrets: ConfigSecrets['seal'] = registered.seal;
export const openConfigSecrets: ConfigSecrets['open'] = registered.open;
export const maskConfigSecrets: ConfigSecrets['mask'] = registered.mask;
export const maskedSecretPath: ConfigSecrets['maskedPath'] = registered.maskedPath;
