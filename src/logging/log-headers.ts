/**
 * Headers as the request log stores them. Credentials (the gateway key, provider keys, cookies, cloud secrets sent as
 * x-gateway-* headers, keys inside an inline x-gateway-config) are replaced by a mask: they never appear. Headers
 * the organisation (ORGANISATION_HEADERS_TO_MASK) or the request (x-gateway-sensitive-headers) names are stored
 * hashed: equal values can still be matched, the value itself is not kept. Names compare case-insensitively.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { MASK, maskSecrets } from '../secrets/mask.ts';

const CREDENTIALS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-gateway-api-key',
  'api-key',
  'x-api-key',
  'x-goog-api-key',
]);
/** an x-gateway-* header whose name says it carries a secret (a cloud secret access key, a session token ...) */
const SECRET_NAMED = /(key|secret|token|password|credential|service-account)/;
const NOT_SECRET: ReadonlySet<string> = new Set(['x-gateway-virtual-key', 'x-gateway-cache-namespace']);

export function isCredentialHeader(name: string): boolean {
  return CREDENTIALS.has(name) || (name.startsWith('x-gateway-') && SECRET_NAMED.test(name.slice(10)) && !NOT_SECRET.has(name));
}

/** `sha256:` and the first 16 hex digits of the value's SHA-256. */
export function hashedValue(value: string): string {
  return `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

function inlineConfig(value: string): string {
  if (!value.trimStart().startsWith('{')) return value;
  try {
    return JSON.stringify(maskSecrets(JSON.parse(value)));
  } catch {
    return MASK;
  }
}

function text(value: string | number | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

export interface LoggedHeaders {
  /** every header but the x-gateway-* ones */
  request: Record<string, string>;
  /** the x-gateway-* headers that were sent */
  gateway: Record<string, string>;
}

/** The names to hash: the organisation's list and the request's x-gateway-sensitive-headers. */
export function sensitiveNames(organisation: readonly string[], headers: IncomingHttpHeaders): Set<string> {
  const names = new Set(organisation);
  const listed = text(headers['x-gateway-sensitive-headers']);
  if (listed) for (const name of listed.split(',')) if (name.trim()) names.add(name.trim().toLowerCase());
  return names;
}

function logged(name: string, value: string, sensitive: ReadonlySet<string>): string {
  if (isCredentialHeader(name)) return MASK;
  if (sensitive.has(name)) return hashedValue(value);
  return name === 'x-gateway-config' ? inlineConfig(value) : value;
}

/** A request's headers, split into the client's own and the gateway's, masked. Node gives names in lower case. */
export function requestHeadersForLog(headers: IncomingHttpHeaders, sensitive: ReadonlySet<string>): LoggedHeaders {
  const request: Record<string, string> = {};
  const gateway: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = text(headers[name]);
    if (value === undefined) continue;
    (name.startsWith('x-gateway-') ? gateway : request)[name] = logged(name, value, sensitive);
  }
  return { request, gateway };
}

/** Response headers as Node or Fastify hold them. */
export type ResponseHeaders = Readonly<Record<string, string | number | readonly string[] | undefined>>;

/** The response's headers as sent, masked the same way. */
export function responseHeadersForLog(headers: ResponseHeaders, sensitive: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = text(headers[name]);
    if (value !== undefined) out[name.toLowerCase()] = logged(name.toLowerCase(), value, sensitive);
  }
  return out;
}
