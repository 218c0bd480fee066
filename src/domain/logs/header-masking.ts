/**
 * A custom log's headers stored as the request log stores a proxied request's (src/logging/log-headers.ts):
 * credentials masked, the names the organisation (ORGANISATION_HEADERS_TO_MASK) or the request
 * (`x-gateway-sensitive-headers`, the POST's own or the logged request's) lists stored hashed. Names compare
 * case-insensitively and are stored in lower case, as Node gives a proxied request's.
 */
import { invalidParam } from '../../core/errors.ts';
import { requestHeadersForLog, responseHeadersForLog, type LoggedHeaders } from '../../logging/log-headers.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `x-gateway-sensitive-headers`: a JSON array of header names or a comma-separated list (as on inference routes).
 * `param` names the header in the 400 a malformed list gets.
 */
export function parseSensitiveHeaderList(value: string | undefined, param: string): string[] {
  const text = value?.trim();
  if (!text) return [];
  let items: unknown;
  try {
    items = text.startsWith('[') ? JSON.parse(text) : text.split(',').map((item) => item.trim());
  } catch {
    items = undefined;
  }
  if (!Array.isArray(items) || !items.every((item) => typeof item === 'string' && TOKEN.test(item))) {
    throw invalidParam(param, `${param} must be a JSON array of header names or a comma-separated list.`, 'invalid_header');
  }
  return (items as string[]).map((item) => item.toLowerCase());
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

export interface MaskedCustomHeaders extends LoggedHeaders {
  response: Record<string, string>;
}

/** `sensitive`: the organisation's names and the POST's own list; the logged request's list is added here. */
export function maskCustomLogHeaders(
  requestHeaders: Readonly<Record<string, string>>,
  responseHeaders: Readonly<Record<string, string>>,
  sensitive: readonly string[],
): MaskedCustomHeaders {
  const request = lowerCased(requestHeaders);
  const names = new Set([...sensitive.map((name) => name.toLowerCase()), ...parseSensitiveHeaderList(request['x-gateway-sensitive-headers'], 'request.headers.x-gateway-sensitive-headers')]);
  const logged = requestHeadersForLog(request, names);
  return { ...logged, response: responseHeadersForLog(lowerCased(responseHeaders), names) };
}
