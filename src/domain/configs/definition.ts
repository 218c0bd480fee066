/**
 * What a saved config stores: the config object as the client wrote it, once the routing config schema accepts it
 * (the same parseConfig that checks x-gateway-config, so a saved config never fails later for its shape).
 */
import { invalidParam } from '../../core/errors.ts';
import { parseConfig, type ParseConfigOptions } from '../../routing/config-schema.ts';
import type { SecretCipher } from '../../secrets/cipher.ts';
import { maskedSecretPath, sealConfigSecrets } from '../../secrets/config-secrets.ts';

/** Every node holds every config it serves in memory: a bound far above any real routing config. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Checks a `config` body field: a 400 naming the path inside it (`config.targets[1].retry.attempts`), an unknown
 * provider included. Returns the object unchanged.
 */
export function checkConfigObject(config: Record<string, unknown>, rules: ParseConfigOptions): Record<string, unknown> {
  parseConfig(config, rules);
  if (Buffer.byteLength(JSON.stringify(config)) > MAX_CONFIG_BYTES) {
    throw invalidParam('config', `config must be at most ${MAX_CONFIG_BYTES} bytes as JSON.`, 'invalid_config');
  }
  const masked = maskedSecretPath(config);
  if (masked) throw invalidParam(masked, `${masked} is masked: send the credential itself.`, 'invalid_config');
  return config;
}

/** The object to store: checked, with every credential sealed (src/secrets/config-secrets.ts). */
export function storableConfig(config: Record<string, unknown>, rules: ParseConfigOptions, secrets: SecretCipher): Record<string, unknown> {
  return sealConfigSecrets(checkConfigObject(config, rules), secrets);
}
