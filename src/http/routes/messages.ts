/**
 * The Messages API inbound: POST /v1/messages and /v1/messages/count_tokens, for clients built on the Anthropic
 * SDK. The body is checked (a 400 naming the field), then forwarded through the same pipeline as chat completions
 * (configs, retries, guardrails, limits, the cache, the log). A target that speaks Messages natively gets the body
 * as sent; any other is reached through the canonical chat form (src/providers/anthropic/inbound/), and its answer
 * is written back as a Message or as the Messages event stream (render-messages.ts).
 *
 * Credentials: the gateway key comes in x-gateway-api-key, or, on these routes only and when x-gateway-api-key is
 * absent, where the Anthropic SDKs put their key: `x-api-key`, else `Authorization: Bearer` (so a client pointed at
 * the gateway needs no extra header; the provider's credential then comes from a config or a saved provider). It is
 * checked by the same auth hook as every /v1 route. When the gateway key comes in x-gateway-api-key, an
 * `x-api-key` is the provider credential, like `Authorization: Bearer` (which wins when both are sent).
 * The client's `anthropic-version` and `anthropic-beta` reach the provider as forwarded headers, also when a config
 * target names its own forward_headers (a provider that does not speak Messages never gets them).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayHeaders } from '../../core/context.ts';
import type { RouteKind } from '../../core/inference-call.ts';
import { withMessagesRoute } from '../../providers/anthropic/inbound/index.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { forward, gatewayHeadersOf, type ForwardDeps } from '../forward.ts';
import { messagesCacheForm, serveCachedMessage } from '../messages-cache.ts';
import { validateCountTokens, validateMessages } from './messages-schema.ts';

const MESSAGES_ROUTES: ReadonlySet<RouteKind | undefined> = new Set<RouteKind>(['messages', 'messages.count_tokens']);
/** the Messages API's own headers, forwarded to the provider when the client sends them */
const PROTOCOL_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;
const CLIENT_KEY = 'x-api-key';
const BEARER = /^Bearer\s+(.+)$/i;

function single(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Registered before the auth hook: on the Messages routes, a request without x-gateway-api-key presents the
 * gateway key the way the Anthropic SDKs send their key: in `x-api-key`, or else in `Authorization: Bearer` (the
 * current SDKs). The key moves to x-gateway-api-key (checked there like any other: 401 when unknown) and leaves the
 * header it came in, so it is never taken for a provider credential nor forwarded.
 */
export function registerMessagesKeyHeader(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config as { routeKind?: RouteKind } | undefined;
    if (!MESSAGES_ROUTES.has(config?.routeKind)) return done();
    const headers = request.headers;
    if (headers['x-gateway-api-key'] !== undefined) return done();
    if (headers[CLIENT_KEY] !== undefined) {
      headers['x-gateway-api-key'] = headers[CLIENT_KEY];
      delete headers[CLIENT_KEY];
      return done();
    }
    const bearer = BEARER.exec(single(headers.authorization) ?? '');
    if (bearer) {
      headers['x-gateway-api-key'] = bearer[1]!.trim();
      delete headers.authorization;
    }
    done();
  });
}

/**
 * The request's gateway headers with the Messages API's: its protocol headers forwarded, x-api-key as the provider
 * key. A client that sends the gateway key twice (x-gateway-api-key, and as its SDK key) does not hand it to the
 * provider: a copy of the gateway key is never a provider credential.
 */
function messagesHeaders(headers: GatewayHeaders, request: FastifyRequest): GatewayHeaders {
  const protocolHeaders = PROTOCOL_HEADERS.filter((name) => request.headers[name] !== undefined);
  const sent = protocolHeaders.filter((name) => !headers.forwardHeaders.includes(name));
  const gatewayKey = single(request.headers['x-gateway-api-key']);
  const notGatewayKey = (value: string | undefined) => (value !== undefined && value !== gatewayKey ? value : undefined);
  const providerToken = notGatewayKey(headers.providerToken) ?? notGatewayKey(single(request.headers[CLIENT_KEY]));
  if (protocolHeaders.length === 0 && providerToken === headers.providerToken) return headers;
  // protocolHeaders: a config target's forward_headers replaces forwardHeaders, and must not drop these
  return { ...headers, forwardHeaders: [...headers.forwardHeaders, ...sent], protocolHeaders, providerToken };
}

/** Every adapter, with the `messages` route through the canonical form where it does not speak Messages itself. */
export function messagesRegistry(registry: ProviderRegistry): ProviderRegistry {
  return new Map([...registry].map(([name, adapter]) => [name, withMessagesRoute(adapter)]));
}

export function registerMessagesRoutes(app: FastifyInstance, deps: ForwardDeps): void {
  // built once: the pipeline finds the Messages route on every adapter of this registry
  // the cache keeps Messages here, never chat answers (messages-cache.ts)
  const messagesDeps: ForwardDeps = { ...deps, registry: messagesRegistry(deps.registry), cacheForm: messagesCacheForm, serveCached: serveCachedMessage };
  const prepare = (request: FastifyRequest, reply: Parameters<typeof gatewayHeadersOf>[1]) => {
    request.gateway = messagesHeaders(gatewayHeadersOf(request, reply, messagesDeps), request);
  };
  app.post('/v1/messages', { config: { routeKind: 'messages' } }, async (request, reply) => {
    const body = validateMessages(request.body);
    prepare(request, reply);
    await forward(request, reply, { route: 'messages', body }, messagesDeps);
  });
  // counted by a provider that speaks Messages natively (Anthropic, Claude on Vertex and Bedrock); any other answers 400 unsupported_route
  app.post('/v1/messages/count_tokens', { config: { routeKind: 'messages.count_tokens' } }, async (request, reply) => {
    const body = validateCountTokens(request.body);
    prepare(request, reply);
    await forward(request, reply, { route: 'messages.count_tokens', body }, messagesDeps);
  });
}
