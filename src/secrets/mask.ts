/** Secrets never reach an audit record or a log: values under sensitive-looking keys are replaced. */
const SENSITIVE = /(^|_|-)(key|secret|token|password|passphrase|authorization|credential|credentials|private_key|api_key|service_account)s?$/i;
const NOT_SECRET = new Set(['key_transition_period_ms', 'target_field', 'secret_reference_id', 'secret_key']);

export const MASK = '********';

/** Whether a field of this name holds a secret (an API key, a token, a password...). */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE.test(name) && !NOT_SECRET.has(name);
}

export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 20) return MASK;
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    out[name] = isSensitiveName(name) && inner !== null && typeof inner !== 'object' ? MASK : maskSecrets(inner, depth + 1);
  }
  return out;
}

/** Header values masked by name (case-insensitive): the organisation list plus the caller's own list. */
export function maskHeaders(headers: Record<string, unknown>, extra: readonly string[]): Record<string, unknown> {
  const names = new Set(['authorization', 'x-gateway-api-key', 'cookie', 'proxy-authorization', 'api-key', 'x-api-key', ...extra.map((name) => name.toLowerCase())]);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = names.has(name.toLowerCase()) ? MASK : value;
  return out;
}
