/**
 * A config read back shows its credentials as the mask; a client that edits something else and PUTs the whole
 * object back sends the mask where the credential was. Such a mask keeps the stored (sealed) credential at the
 * same place: the same key of the same object, arrays by index. A mask where nothing was stored stays, and is
 * refused by checkConfigObject naming its path.
 */
import { maskedSecretPath } from '../../secrets/config-secrets.ts';
import { MASK } from '../../secrets/mask.ts';

/** Request content the config secrets leave as written (src/secrets/config-secrets.ts): never a credential. */
const NOT_CREDENTIALS = new Set(['override_params', 'query']);
const MAX_DEPTH = 32;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The config secrets' own rule for a credential's field name (declared cloud fields included). */
function isSecretField(name: string): boolean {
  return maskedSecretPath({ [name]: MASK }) !== undefined;
}

function restore(next: unknown, stored: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return next;
  if (Array.isArray(next)) return next.map((item, index) => restore(item, Array.isArray(stored) ? stored[index] : undefined, depth + 1));
  if (!isObject(next)) return next;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(next)) {
    const before = isObject(stored) ? stored[name] : undefined;
    if (NOT_CREDENTIALS.has(name)) out[name] = value;
    else if (value === MASK && typeof before === 'string' && isSecretField(name)) out[name] = before;
    else out[name] = restore(value, before, depth + 1);
  }
  return out;
}

/** `next` with every mask sent back where `stored` holds a credential replaced by that credential. */
export function keepMaskedSecrets(next: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  return restore(next, stored, 0) as Record<string, unknown>;
}
