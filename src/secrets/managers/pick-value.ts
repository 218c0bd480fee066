/**
 * The string a secret mapping receives. `secret_key` picks one key of a JSON secret (an AWS SecretString holding
 * `{"api_key": ...}`, a Vault KV map); without it a string secret is used whole, and a map with a single key gives
 * that key's value. A message may name keys, never a value.
 */
import { secretUnavailable, type ReferenceLabel } from './errors.ts';
import type { RawSecret } from './types.ts';

function asObject(raw: RawSecret): Readonly<Record<string, unknown>> | undefined {
  if (typeof raw !== 'string') return raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function asText(value: unknown, label: ReferenceLabel, where: string): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw secretUnavailable(label, `${where} is not a string.`);
  if (value === '') throw secretUnavailable(label, `${where} is empty.`);
  return value;
}

export function pickSecretValue(raw: RawSecret, secretKey: string | null | undefined, label: ReferenceLabel): string {
  if (secretKey) {
    const object = asObject(raw);
    if (!object) throw secretUnavailable(label, `secret_key "${secretKey}" is set, but the secret is not a JSON object.`);
    if (!Object.hasOwn(object, secretKey)) throw secretUnavailable(label, `the secret has no key "${secretKey}".`);
    return asText(object[secretKey], label, `the secret's key "${secretKey}"`);
  }
  if (typeof raw === 'string') return asText(raw, label, 'the secret');
  const keys = Object.keys(raw);
  if (keys.length === 1) return asText(raw[keys[0]!], label, `the secret's key "${keys[0]}"`);
  throw secretUnavailable(label, `the secret holds ${keys.length} keys (${keys.slice(0, 10).join(', ')}): set secret_key to pick one.`);
}
