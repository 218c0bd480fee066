/**
 * Parses the x-gateway-* request headers once into GatewayHeaders. A malformed value is a 400 naming the header:
 * so is an empty x-gateway-* header, and a single-valued one sent twice (Node joins the copies with ", ", which
 * would turn two custom hosts into one garbled URL or let a proxy's copy and the client's copy disagree).
 * Pure: headers in, context out; the trace id generator and the cloud header prefixes are injected.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { invalidParam } from '../core/errors.ts';
import type { GatewayHeaders } from '../core/context.ts';
import type { CloudSettings } from '../providers/contract.ts';
import { isProviderSlug } from '../domain/providers/slug.ts';

/** What parsing needs besides the headers, fixed at start-up. */
export interface HeaderParsing {
  newTraceId: () => string;
  /** the x-gateway-* prefixes whose headers are cloud settings (`cloudHeaderPrefixes`) */
  cloudHeaderPrefixes: readonly string[];
}

/** The prefixes the adapters declare, each once (two adapters of one cloud share theirs); computed once at start-up. */
export function cloudHeaderPrefixes(declarations: readonly CloudSettings[]): string[] {
  return [...new Set(declarations.map((declaration) => declaration.headerPrefix.toLowerCase()))];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** lists: a second copy adds names to the list (HTTP list semantics), it does not conflict with the first */
const LIST_HEADERS: ReadonlySet<string> = new Set(['x-gateway-forward-headers', 'x-gateway-sensitive-headers']);

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  const trimmed = text.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

function parseBoolean(headers: IncomingHttpHeaders, name: string): boolean | undefined {
  const value = single(headers, name);
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw invalidParam(name, `Header ${name} must be "true" or "false", got "${value}".`, 'invalid_header');
}

function parseTimeout(headers: IncomingHttpHeaders, name: string): number | undefined {
  const value = single(headers, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1) {
    throw invalidParam(name, `Header ${name} must be a positive integer number of milliseconds, got "${value}".`, 'invalid_header');
  }
  return Number(value);
}

function parseMetadata(headers: IncomingHttpHeaders, name: string): Record<string, unknown> {
  const value = single(headers, name);
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalidParam(name, `Header ${name} must be a JSON object.`, 'invalid_header');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidParam(name, `Header ${name} must be a JSON object.`, 'invalid_header');
  }
  return parsed as Record<string, unknown>;
}

/** A list of header names: a JSON array of strings, or a comma-separated list. */
function parseHeaderList(headers: IncomingHttpHeaders, name: string): string[] {
  const value = single(headers, name);
  if (value === undefined) return [];
  let items: unknown;
  if (value.startsWith('[')) {
    try {
      items = JSON.parse(value);
    } catch {
      throw invalidParam(name, `Header ${name} must be a JSON array of header names or a comma-separated list.`, 'invalid_header');
    }
  } else {
    items = value.split(',').map((item) => item.trim());
  }
  if (!Array.isArray(items) || !items.every((item) => typeof item === 'string' && TOKEN.test(item))) {
    throw invalidParam(name, `Header ${name} must list valid header names.`, 'invalid_header');
  }
  return (items as string[]).map((item) => item.toLowerCase());
}

/** A saved provider's slug (`@slug` in x-gateway-provider, x-gateway-virtual-key): refused by its form, before any lookup. */
function parseSlug(value: string | undefined, name: string): string | undefined {
  if (value === undefined || isProviderSlug(value)) return value;
  throw invalidParam(name, `Header ${name} names a malformed provider slug: a slug is 1 to 255 letters, digits, "_" or "-".`, 'invalid_provider_slug');
}

function parseBearer(headers: IncomingHttpHeaders): string | undefined {
  const value = single(headers, 'authorization');
  if (value === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(value);
  return match ? match[1]!.trim() : value;
}

/** How many header lines named `name` the client sent (rawHeaders keeps every line, in the client's spelling). */
export function timesSent(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const raw = rawHeaders[index]!;
    if (raw.length === name.length && raw.toLowerCase() === name) count += 1;
  }
  return count;
}

/**
 * One pass over the header names: refuses an empty or repeated x-gateway-* header and collects the cloud settings.
 * The raw lines are counted only when the joined value has a ", " (Node joins copies with exactly that), and for
 * `authorization`, whose copies Node drops silently (keeping the first).
 */
function scanHeaders(headers: IncomingHttpHeaders, rawHeaders: readonly string[] | undefined, prefixes: readonly string[]): Record<string, string> {
  const cloud: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (!name.startsWith('x-gateway-')) continue;
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
    const trimmed = text.trim();
    if (trimmed.length === 0) throw invalidParam(name, `Header ${name} is empty: send a value or leave the header out.`, 'invalid_header');
    if (rawHeaders && text.includes(', ') && !LIST_HEADERS.has(name) && timesSent(rawHeaders, name) > 1) throw repeated(name);
    // most x-gateway-* headers are not cloud settings: one cheap test before the prefix list
    if (prefixes.some((prefix) => name.startsWith(prefix))) cloud[name.slice('x-gateway-'.length)] = trimmed;
  }
  if (rawHeaders && headers.authorization !== undefined && timesSent(rawHeaders, 'authorization') > 1) throw repeated('authorization');
  return cloud;
}

function repeated(name: string) {
  return invalidParam(name, `Header ${name} must be sent once; it was sent more than once.`, 'repeated_header');
}

/** `rawHeaders` (the request's raw header lines) lets a header sent twice be told from one whose value has a comma. */
export function parseGatewayHeaders(headers: IncomingHttpHeaders, parsing: HeaderParsing, rawHeaders?: readonly string[]): GatewayHeaders {
  const cloud = scanHeaders(headers, rawHeaders, parsing.cloudHeaderPrefixes);
  const providerHeader = single(headers, 'x-gateway-provider');
  const isSlug = providerHeader?.startsWith('@') ?? false;
  return {
    trace: {
      traceId: single(headers, 'x-gateway-trace-id') ?? parsing.newTraceId(),
      spanId: single(headers, 'x-gateway-span-id'),
      parentSpanId: single(headers, 'x-gateway-parent-span-id'),
      spanName: single(headers, 'x-gateway-span-name'),
    },
    metadata: parseMetadata(headers, 'x-gateway-metadata'),
    provider: isSlug ? undefined : providerHeader?.toLowerCase(),
    providerSlug: isSlug ? parseSlug(providerHeader!.slice(1), 'x-gateway-provider') : undefined,
    virtualKey: parseSlug(single(headers, 'x-gateway-virtual-key'), 'x-gateway-virtual-key'),
    config: single(headers, 'x-gateway-config'),
    customHost: single(headers, 'x-gateway-custom-host'),
    providerToken: parseBearer(headers),
    cacheForceRefresh: parseBoolean(headers, 'x-gateway-cache-force-refresh') ?? false,
    cacheNamespace: single(headers, 'x-gateway-cache-namespace'),
    requestTimeoutMs: parseTimeout(headers, 'x-gateway-request-timeout'),
    fetchIntegratedModels: parseBoolean(headers, 'x-gateway-fetch-integrated-models'),
    forwardHeaders: parseHeaderList(headers, 'x-gateway-forward-headers'),
    sensitiveHeaders: parseHeaderList(headers, 'x-gateway-sensitive-headers'),
    cloud,
    strictReferenceCompliance: parseBoolean(headers, 'x-gateway-strict-reference-compliance'),
  };
}
