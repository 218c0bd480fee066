/**
 * Our own `env` type: secret_path names an environment variable of the gateway, read through the config module's
 * accessor (injected: src/config/environment-secrets.ts), which refuses the gateway's own settings.
 */
import { secretUnavailable, type ReferenceLabel } from './errors.ts';
import type { RawSecret } from './types.ts';

export type EnvironmentReader = (name: string) => string | undefined;

export function environmentSecret(name: string, read: EnvironmentReader, label: ReferenceLabel): RawSecret {
  const value = read(name);
  if (value === undefined) throw secretUnavailable(label, `the environment variable ${name} is not set on the gateway.`);
  return value;
}
