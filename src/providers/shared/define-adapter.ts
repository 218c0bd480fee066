/**
 * The skeleton of an adapter outside the OpenAI-compatible family. Such an adapter is declared as data: per route,
 * how the upstream request is built, how the answer is read and how a stream is decoded; beside that, its credential
 * headers, where its pass-through paths go and how its errors read. `defineAdapter` turns the declaration into a
 * ProviderAdapter and owns what all of them do alike:
 * - pass-through: the client's bytes (none when empty), content type and query, to `${root}${call.path}`, with the
 *   adapter's headers and nothing else;
 * - a built route's body encoded as JSON (`content-type: application/json`) beside the adapter's headers;
 * - the 400 for a route the adapter does not serve.
 */
import { invalidParam } from '../../core/errors.ts';
import type {
  Capabilities,
  ErrorParser,
  InferenceCall,
  ProviderAdapter,
  ProviderTarget,
  ResponseTransform,
  RouteKind,
  StreamDecoder,
  UpstreamRequest,
} from '../contract.ts';

/** What a route builds; the skeleton adds the adapter's headers and encodes the body. */
export interface RouteRequest {
  url: string;
  /** POST unless given */
  method?: string;
  /** a JSON value, encoded here; a string or Buffer is JSON already encoded; undefined sends no body */
  body: unknown;
  warnings: string[];
  /** headers this route adds beside the adapter's (e.g. `accept`) */
  headers?: Record<string, string>;
}

export interface RouteHandler {
  request(call: InferenceCall, target: ProviderTarget): RouteRequest;
  /** reads the answer; undefined: the provider's answer goes back as it is */
  response?: ResponseTransform;
  /** a decoder when this call streams in the provider's own format; undefined relays the stream untouched */
  stream?(call: InferenceCall, target: ProviderTarget): StreamDecoder | undefined;
}

export type BuiltInRoute = Exclude<RouteKind, 'passthrough'>;

export interface AdapterDefinition {
  name: string;
  /** everything but the routes, which are the keys of `routes` plus pass-through */
  capabilities: Omit<Capabilities, 'routes'>;
  defaultBaseUrl: string | undefined;
  baseUrlFor?(cloud: Readonly<Record<string, string>>): string;
  routes: Partial<Record<BuiltInRoute, RouteHandler>>;
  /** the credential and fixed headers of every call, pass-through included ({} where `prepare` signs or adds them) */
  headers(target: ProviderTarget): Record<string, string>;
  /** the root pass-through paths go under, when it is not the target's base URL (a version added or dropped) */
  passthroughRoot?(target: ProviderTarget): string;
  /** runs before any request is built, pass-through included: a missing cloud setting is a 400 before anything is sent */
  checkTarget?(target: ProviderTarget): void;
  prepare?: ProviderAdapter['prepare'];
  parseError?: ErrorParser;
}

/** The client's query string as a URL suffix ('' when there is none). */
export function queryOf(call: InferenceCall): string {
  return call.query ? `?${call.query}` : '';
}

function encoded(body: unknown): Buffer | string | undefined {
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body);
}

function passthrough(definition: AdapterDefinition, call: InferenceCall, target: ProviderTarget): UpstreamRequest {
  const body = call.rawBody && call.rawBody.length > 0 ? call.rawBody : undefined;
  const headers = { ...definition.headers(target), ...(body ? { 'content-type': call.contentType ?? 'application/json' } : {}) };
  const root = definition.passthroughRoot?.(target) ?? target.baseUrl;
  return { method: call.method, url: `${root}${call.path}${queryOf(call)}`, headers, body, warnings: [] };
}

export function defineAdapter(definition: AdapterDefinition): ProviderAdapter {
  const { name, routes, baseUrlFor, prepare, parseError } = definition;
  const handlerOf = (route: RouteKind): RouteHandler | undefined => (route === 'passthrough' ? undefined : routes[route]);
  return {
    name,
    capabilities: { routes: new Set<RouteKind>([...(Object.keys(routes) as BuiltInRoute[]), 'passthrough']), ...definition.capabilities },
    defaultBaseUrl: definition.defaultBaseUrl,
    ...(baseUrlFor ? { baseUrlFor } : {}),

    buildRequest(call: InferenceCall, target: ProviderTarget): UpstreamRequest {
      definition.checkTarget?.(target);
      if (call.route === 'passthrough') return passthrough(definition, call, target);
      const handler = handlerOf(call.route);
      if (!handler) throw invalidParam('x-gateway-provider', `Provider "${name}" does not support this route (${call.route}).`, 'unsupported_route');
      const built = handler.request(call, target);
      const body = encoded(built.body);
      const headers = { ...definition.headers(target), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...built.headers };
      return { method: built.method ?? 'POST', url: built.url, headers, body, warnings: built.warnings };
    },

    responseTransform: (route) => handlerOf(route)?.response,
    streamDecoder: (call, target) => handlerOf(call.route)?.stream?.(call, target),
    ...(prepare ? { prepare } : {}),
    ...(parseError ? { parseError } : {}),
  };
}
