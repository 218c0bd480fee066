/**
 * The transport's side of an inference route: parse the x-gateway-* headers once, build the call, run the request
 * pipeline (src/pipeline/executor.ts), and write out what it chose (render-answer.ts) with the x-gateway-* answer
 * headers. What happened is noted on the request's log record by the pipeline's steps; the request-log plugin
 * writes it when the response closes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AbortLink } from '../core/abort-link.ts';
import type { GatewayHeaders } from '../core/context.ts';
import type { InferenceCall, RoutedBody } from '../core/inference-call.ts';
import type { Outcome } from '../pipeline/outcome.ts';
import { runPipeline, type PipelineDeps } from '../pipeline/executor.ts';
import { parseGatewayHeaders, type HeaderParsing } from './parse-gateway-headers.ts';
import { renderAnswer } from './render-answer.ts';
import type { ServeCached } from './render-cached.ts';

// allocated once: an Error per disconnect would capture a stack trace
const CLIENT_GONE = new Error('client disconnected');

/** Everything the pipeline needs, all required: a missing step is a type error, never a silently skipped one. */
export interface ForwardDeps extends PipelineDeps, HeaderParsing {
  /** a route whose cache entries are not chat answers serves its hits itself (with `cacheForm`, how it stores them) */
  serveCached?: ServeCached;
}

/** Parses the x-gateway-* headers once per request and answers with the trace id from then on. */
export function gatewayHeadersOf(request: FastifyRequest, reply: FastifyReply, deps: ForwardDeps): GatewayHeaders {
  if (request.gateway) return request.gateway;
  const headers = parseGatewayHeaders(request.headers, deps, request.raw.rawHeaders);
  request.gateway = headers;
  reply.header('x-gateway-trace-id', headers.trace.traceId);
  return headers;
}

function strictCompliance(request: FastifyRequest): boolean {
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && body.strict_reference_compliance === false) return false;
  return request.gateway?.strictReferenceCompliance ?? true;
}

function inferenceCall(request: FastifyRequest, routed: RoutedBody, path = ''): InferenceCall {
  const url = request.raw.url ?? '';
  const queryStart = url.indexOf('?');
  const contentType = request.headers['content-type'];
  // explicit fields, not a spread: one object shape for every call
  return {
    route: routed.route,
    body: routed.body,
    method: request.method,
    path,
    query: queryStart >= 0 ? url.slice(queryStart + 1) : '',
    strictReferenceCompliance: strictCompliance(request),
    rawBody: request.rawBody,
    contentType,
    params: (request.params as Record<string, string> | undefined) ?? {},
  } as InferenceCall;
}

/** The x-gateway-* headers of the answer: which provider and target answered, retries, cache, guardrails, warnings. */
function answerHeaders(headers: GatewayHeaders, outcome: Outcome): Record<string, string> {
  const answer: Record<string, string> = {
    'x-gateway-trace-id': headers.trace.traceId,
    'x-gateway-provider': outcome.adapter.name,
    'x-gateway-retry-attempt-count': String(outcome.retries),
    'x-gateway-cache-status': outcome.cacheStatus,
  };
  if (outcome.optionPath !== undefined) answer['x-gateway-last-used-option-index'] = outcome.optionPath;
  if (outcome.input.length > 0 || outcome.output) {
    const passed = outcome.input.every((result) => result.verdict) && (outcome.output?.outcome.passed ?? true);
    answer['x-gateway-guardrails'] = passed ? 'passed' : 'failed';
  }
  if (outcome.warnings.length > 0) answer['x-gateway-warnings'] = outcome.warnings.join('; ');
  return answer;
}

export async function forward(request: FastifyRequest, reply: FastifyReply, routed: RoutedBody, deps: ForwardDeps, path = ''): Promise<void> {
  const headers = gatewayHeadersOf(request, reply, deps);
  const clientGone = new AbortLink();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) clientGone.abort(CLIENT_GONE);
  });
  const io = {
    clientHeaders: request.headers,
    clientGone,
    principal: request.principal,
    record: request.logRecord,
    onStoreError: (error: unknown) => request.log.warn({ err: error }, 'cache store failed'),
  };
  const outcome = await runPipeline(inferenceCall(request, routed, path), headers, io, deps);
  await renderAnswer(reply, outcome, answerHeaders(headers, outcome), request.logRecord, deps.serveCached);
}
