/**
 * The request pipeline of an inference route, wired by injection: headers -> execute (config, guardrails, cache,
 * retries and fallbacks: routing/execute.ts) -> render. What happened is noted on the request's log record, which
 * the request-log plugin writes when the response closes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AbortLink } from '../core/abort-link.ts';
import type { GatewayHeaders } from '../core/context.ts';
import type { TargetDeps } from '../core/resolve-target.ts';
import type { CheckRegistry } from '../guardrails/registry.ts';
import type { SavedGuardrails } from '../guardrails/saved.ts';
import { storer } from '../cache/pipeline.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { SemanticCaches } from '../cache/semantic/semantic-caches.ts';
import { execute } from '../routing/execute.ts';
import { noteExecution } from '../logging/request-record.ts';
import type { SavedConfigs } from '../routing/saved-configs.ts';
import { renderCached } from './render-cached.ts';
import type { InferenceCall, RouteKind } from '../providers/contract.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { parseGatewayHeaders } from './parse-gateway-headers.ts';
import { renderUpstream } from './render-upstream.ts';

// allocated once: an Error per disconnect would capture a stack trace
const CLIENT_GONE = new Error('client disconnected');

export interface ForwardDeps extends TargetDeps {
  upstream: UpstreamClient;
  newTraceId: () => string;
  checks?: CheckRegistry;
  savedGuardrails?: SavedGuardrails;
  /** saved configs by id or slug (x-gateway-config), held in process */
  savedConfigs?: SavedConfigs;
  responses?: ResponseCache;
  semantic?: SemanticCaches;
}

/** Parses the x-gateway-* headers once per request and answers with the trace id from then on. */
export function gatewayHeadersOf(request: FastifyRequest, reply: FastifyReply, deps: ForwardDeps): GatewayHeaders {
  if (request.gateway) return request.gateway;
  const headers = parseGatewayHeaders(request.headers, deps.newTraceId, request.raw.rawHeaders);
  request.gateway = headers;
  reply.header('x-gateway-trace-id', headers.trace.traceId);
  return headers;
}

function strictCompliance(request: FastifyRequest): boolean {
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && body.strict_reference_compliance === false) return false;
  return request.gateway?.strictReferenceCompliance ?? true;
}

function inferenceCall(request: FastifyRequest, route: RouteKind, path = ''): InferenceCall {
  const url = request.raw.url ?? '';
  const queryStart = url.indexOf('?');
  const contentType = request.headers['content-type'];
  return {
    route,
    method: request.method,
    path,
    query: queryStart >= 0 ? url.slice(queryStart + 1) : '',
    body: request.body,
    strictReferenceCompliance: strictCompliance(request),
    rawBody: request.rawBody,
    contentType,
    params: (request.params as Record<string, string> | undefined) ?? {},
  };
}

export async function forward(request: FastifyRequest, reply: FastifyReply, route: RouteKind, deps: ForwardDeps, path = ''): Promise<void> {
  const headers = gatewayHeadersOf(request, reply, deps);
  const clientGone = new AbortLink();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) clientGone.abort(CLIENT_GONE);
  });
  const execution = await execute(inferenceCall(request, route, path), headers, { clientHeaders: request.headers, clientGone, principal: request.principal }, deps);
  noteExecution(request.logRecord, execution);
  const { attempt, adapter } = execution;
  const gatewayHeaders: Record<string, string> = {
    'x-gateway-trace-id': headers.trace.traceId,
    'x-gateway-provider': adapter.name,
    'x-gateway-retry-attempt-count': String(execution.retries),
    'x-gateway-cache-status': execution.cacheStatus,
  };
  if (execution.optionPath !== undefined) gatewayHeaders['x-gateway-last-used-option-index'] = execution.optionPath;
  const { input, output } = execution.guardrails;
  if (input.length > 0) gatewayHeaders['x-gateway-guardrails'] = input.every((result) => result.verdict) ? 'passed' : 'failed';
  const cacheWarnings = execution.cacheWarnings ?? [];
  if (cacheWarnings.length > 0) gatewayHeaders['x-gateway-warnings'] = cacheWarnings.join('; ');
  if (!attempt) return renderCached(reply, execution.cached!, execution.call, gatewayHeaders);
  if (attempt.request.warnings.length > 0) gatewayHeaders['x-gateway-warnings'] = [...attempt.request.warnings, ...cacheWarnings].join('; ');
  const store = execution.cache && deps.responses ? storer(deps.responses, execution.cache, (error) => request.log.warn({ err: error }, 'cache store failed')) : undefined;
  await renderUpstream(reply, attempt, {
    store,
    record: request.logRecord,
    call: execution.call,
    target: execution.target,
    adapter,
    gatewayHeaders,
    timeoutMs: execution.timeoutMs,
    guardrails:
      input.length > 0 || output.length > 0
        ? { input, output, judged: execution.guardrails.judged, registry: deps.checks, metadata: headers.metadata, signal: clientGone.signal }
        : undefined,
  });
}
