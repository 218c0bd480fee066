/**
 * A finished request's record -> its request_logs row. What is stored: who called (organisation, workspace, API key,
 * user), the trace, route, method, path (never the query string: pass-through queries may carry provider keys),
 * provider, model, status, timings (total, upstream, first byte, queueing), every upstream try, cache status,
 * retries, the target that answered, token counts (cached, cache written and reasoning ones too), the cost,
 * x-gateway-metadata, guardrail verdicts, the error, headers (masked: log-headers.ts) and, unless turned off, the
 * bodies cut at a cap (log-bodies.ts). Provider credentials never: they are masked wherever they could appear.
 *
 * The cost is USD with 12 decimals (exact picodollars, src/pricing/money.ts), null when not known, never a guessed 0.
 * A cache hit costs 0; what it saved (the cost the answer had) goes into `saved_cost`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayHeaders, Principal } from '../core/context.ts';
import { logsBodies, requestBodyText, responseBodyText } from './log-bodies.ts';
import { requestHeadersForLog, responseHeadersForLog, sensitiveNames, type ResponseHeaders } from './log-headers.ts';
import { usdText } from '../pricing/money.ts';
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';
import { answerFacts, recordCost, type LoggedError, type RequestRecord } from './request-record.ts';

/** nginx's 499 "client closed request": the connection closed before any of the answer was sent */
export const CLIENT_CLOSED_STATUS = 499;
const CLIENT_CLOSED: LoggedError = {
  message: 'The client closed the connection before the answer was complete.',
  type: 'client_closed',
  code: 'client_closed_request',
};

export interface RowInputs {
  id: string;
  record: RequestRecord;
  principal: Principal;
  /** the parsed x-gateway-* headers; undefined when the request failed before they were parsed */
  gateway: GatewayHeaders | undefined;
  /** the trace id to use when `gateway` is undefined */
  fallbackTraceId: string;
  method: string;
  /** the URL as received; the query string is cut off here */
  url: string;
  requestBody: unknown;
  /** the body's bytes as received, when the parser kept them */
  rawBody: Buffer | undefined;
  requestHeaders: IncomingHttpHeaders;
  responseHeaders: ResponseHeaders;
  /** ORGANISATION_HEADERS_TO_MASK, lower case */
  headersToMask: readonly string[];
  /** each body is cut at this many bytes; 0 logs no bodies */
  bodyCap: number;
  /** the status the client got */
  status: number;
  /** false when the client went away before the answer was complete */
  completed: boolean;
  /** whether any of the answer (its status line) reached the client */
  headersSent: boolean;
  endedAt: number;
}

function bodyField(body: unknown, name: 'model' | 'stream'): unknown {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) ? (body as Record<string, unknown>)[name] : undefined;
}

export function logRow(input: RowInputs): NewRequestLogRow {
  const { record, principal, gateway } = input;
  const queryAt = input.url.indexOf('?');
  const status = input.completed || input.headersSent ? input.status : CLIENT_CLOSED_STATUS;
  const error = input.completed ? record.error : (record.error ?? CLIENT_CLOSED);
  const requestModel = bodyField(input.requestBody, 'model');
  const usage = record.usage;
  const hooks = record.inputVerdicts || record.outputVerdicts
    ? { before_request_hooks: record.inputVerdicts ?? [], after_request_hooks: record.outputVerdicts ?? [] }
    : null;
  const answered = status >= 200 && status < 300;
  const isSuccess = answered && error === undefined;
  const { cost, saved } = recordCost(record, answered);
  const metadata = gateway?.metadata ?? {};
  const sensitive = sensitiveNames(input.headersToMask, input.requestHeaders);
  const headers = requestHeadersForLog(input.requestHeaders, sensitive);
  const bodies = input.bodyCap > 0 && logsBodies(record, input.requestHeaders['x-gateway-debug']);
  const requestText = bodies ? requestBodyText(input.rawBody, input.requestBody, input.bodyCap) : undefined;
  const tail = record.laterFacts?.kind === 'stream-tail' ? record.laterFacts : undefined;
  const responseText = bodies ? responseBodyText(record.response, input.bodyCap, record.finishReasons !== undefined, tail) : undefined;
  // noted as the answer passed (request-record.ts, steps/log-record.ts); else from the logged body, if it has them;
  // else read now from what the record kept (a relayed stream's tail, a cached answer)
  record.finishReasons ??= responseText?.finishReasons;
  record.answerModel ??= responseText?.model;
  answerFacts(record);
  const responseTimeMs = Math.max(0, Math.round(input.endedAt - record.startedAt));
  const sent = record.firstSendAt;
  const upstreamEnd = record.streamed ? input.endedAt : (record.upstreamEndAt ?? input.endedAt);
  return {
    id: input.id,
    organisationId: principal.organisationId,
    workspaceId: principal.workspaceId,
    // a JWT's key id is its jti or subject, not a key of ours
    apiKeyId: principal.kind === 'api_key' ? principal.keyId : null,
    userId: principal.userId,
    createdAt: new Date(record.startedAt),
    traceId: gateway?.trace.traceId ?? input.fallbackTraceId,
    spanId: gateway?.trace.spanId ?? null,
    parentSpanId: gateway?.trace.parentSpanId ?? null,
    spanName: gateway?.trace.spanName ?? null,
    route: record.route ?? 'unknown',
    method: input.method,
    path: queryAt >= 0 ? input.url.slice(0, queryAt) : input.url,
    provider: record.provider ?? null,
    model: record.model ?? (typeof requestModel === 'string' ? requestModel : undefined) ?? record.answerModel ?? null,
    status,
    isSuccess,
    streamMode: record.streamed || bodyField(input.requestBody, 'stream') === true,
    responseTimeMs,
    cacheStatus: record.cacheStatus ?? null,
    retryCount: record.retries,
    lastUsedOptionIndex: record.optionPath ?? null,
    configId: record.configId ?? null,
    configVersionId: record.configVersionId ?? null,
    promptTokens: usage?.prompt ?? null,
    completionTokens: usage?.completion ?? null,
    totalTokens: usage?.total ?? null,
    cachedTokens: usage?.cached ?? null,
    cacheWriteTokens: usage?.cacheWrite ?? null,
    reasoningTokens: usage?.reasoning ?? null,
    cost: cost === null ? null : usdText(cost),
    providerSlug: record.providerSlug ?? null,
    integrationId: record.integrationId ?? null,
    savedCost: saved === null ? null : usdText(saved),
    metadata,
    hookResults: hooks,
    error: error ? { message: error.message, type: error.type, code: error.code } : null,
    upstreamTimeMs: sent === undefined ? null : Math.max(0, Math.round(upstreamEnd - sent)),
    // a whole answer leaves in one write: its first byte is its end
    firstByteMs: record.firstByteAt !== undefined ? Math.max(0, Math.round(record.firstByteAt - record.startedAt)) : input.headersSent ? responseTimeMs : null,
    queueTimeMs: sent === undefined ? null : Math.max(0, Math.round(sent - record.startedAt)),
    attempts: record.attempts ?? [],
    promptId: record.prompt?.id ?? null,
    promptSlug: record.prompt?.slug ?? null,
    promptVersionId: record.prompt?.versionId ?? null,
    mode: record.mode ?? null,
    requestBody: requestText?.text ?? null,
    responseBody: bodies ? (responseText?.text ?? null) : null,
    bodiesTruncated: (requestText?.truncated ?? false) || (bodies && (responseText?.truncated ?? false)),
    requestHeaders: headers.request,
    gatewayHeaders: headers.gateway,
    responseHeaders: responseHeadersForLog(input.responseHeaders, sensitive),
  };
}
