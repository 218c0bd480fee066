/**
 * An integration's `custom_headers` (api-surface §3.3 CustomHostConfiguration): headers sent to the provider on
 * every request through the integration (a proxy's routing header, a team tag...). Stored as a map of name to
 * value; a value that looks like a credential (its header's name says so, or it starts like a token) is sealed and
 * shown as `********`, and sent back masked it keeps the stored one.
 *
 * They never change how the request is framed or authenticated: framing, hop-by-hop and x-gateway-* headers are
 * refused when saved, and at request time a header the adapter sets (the credential first of all) wins over a
 * custom one of the same name (src/pipeline/integration-headers.ts).
 */
import { invalidParam } from '../../core/errors.ts';
import { isSealed, type SecretCipher } from '../../secrets/cipher.ts';
import { isSensitiveName, MASK } from '../../secrets/mask.ts';

export const CUSTOM_HEADERS = 'custom_headers';
const MAX_HEADERS = 50;
const MAX_VALUE = 4096;
/** RFC 9110 token */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const REFUSED = new Set([
  'host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer',
  'expect', 'proxy-authorization', 'proxy-connection',
]);
/** names that carry a credential without saying `key` or `token` */
const CREDENTIAL_NAMES = new Set(['authorization', 'cookie', 'api-key', 'x-api-key', 'x-goog-api-key', 'ocp-apim-subscription-key']);
/** values that start like a credential whatever their header is called */
const CREDENTIAL_VALUE = /^(bearer|basic|token)\s|^(sk|pk|rk|gsk|xai|hf|ghp|github_pat)[-_]/i;

export function looksSecret(name: string, value: string): boolean {
  return CREDENTIAL_NAMES.has(name.toLowerCase()) || isSensitiveName(name) || CREDENTIAL_VALUE.test(value);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The map as it is stored: checked, secret-looking values sealed, masked ones kept from `stored`. */
export function storableCustomHeaders(value: unknown, param: string, cipher: SecretCipher, stored: unknown): Record<string, string> {
  if (!isObject(value)) throw invalidParam(param, `${param} must be an object of header names to values.`);
  const entries = Object.entries(value);
  if (entries.length > MAX_HEADERS) throw invalidParam(param, `${param} may hold at most ${MAX_HEADERS} headers.`);
  const kept = isObject(stored) ? stored : {};
  const seen = new Set<string>();
  const out: Record<string, string> = {};
  for (const [name, inner] of entries) {
    const at = `${param}.${name}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) throw invalidParam(at, `${at}: "${name}" is not a valid header name.`);
    if (REFUSED.has(lower) || lower.startsWith('x-gateway-') || lower.startsWith('proxy-')) {
      throw invalidParam(at, `${at}: ${name} frames or routes the request and cannot be a custom header.`, 'header_not_allowed');
    }
    if (seen.has(lower)) throw invalidParam(at, `${at}: ${name} is given twice (header names are case-insensitive).`);
    seen.add(lower);
    if (inner === MASK) {
      const previous = kept[name];
      if (typeof previous !== 'string' || !isSealed(previous)) {
        throw invalidParam(at, `${at} is the mask ${MASK} but no value is stored for it: send the value itself.`, 'masked_secret');
      }
      out[name] = cipher.reseal(previous);
      continue;
    }
    if (typeof inner !== 'string' || inner.length > MAX_VALUE || /[\r\n\0]/.test(inner)) {
      throw invalidParam(at, `${at} must be a string of at most ${MAX_VALUE} characters, without line breaks.`);
    }
    out[name] = looksSecret(name, inner) ? cipher.seal(inner) : inner;
  }
  return out;
}
