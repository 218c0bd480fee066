/**
 * Span attributes of a finished request and of each upstream try, following the OpenTelemetry GenAI semantic
 * conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/) and the HTTP ones for the status.
 * The GenAI names are copied here rather than imported from `@opentelemetry/semantic-conventions/incubating`, as
 * that package asks of its experimental names (they may move in a minor release); test/tracing pins them to it.
 * Attributes of our own are under `gateway.`. Never on a span: bodies, headers, keys, users or metadata.
 */
import type { Attributes } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { AttemptLog } from '../logging/request-record.ts';
import type { NewRequestLogRow } from '../storage/repositories/request-logs.ts';

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** deprecated in favour of gen_ai.provider.name, still read by many back-ends */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  requestStream: 'gen_ai.request.stream',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseTimeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
} as const;

/** The route kind -> gen_ai.operation.name: the convention's values where one applies, the route kind otherwise. */
const OPERATIONS: Readonly<Record<string, string>> = {
  chat: 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
  // the Responses API and the Messages API generate a conversation turn, as chat completions do
  'responses.create': 'chat',
  messages: 'chat',
};

export function operationName(route: string): string {
  return OPERATIONS[route] ?? route;
}

/** `{operation} {model}`, as the conventions name a GenAI span */
export function spanName(operation: string, model: string | null | undefined): string {
  return model ? `${operation} ${model}` : operation;
}

function set(attributes: Attributes, key: string, value: string | number | boolean | readonly string[] | null | undefined): void {
  if (value === null || value === undefined || value === '') return;
  attributes[key] = value as Attributes[string];
}

type Usage = Pick<NewRequestLogRow, 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'reasoningTokens'>;

function setUsage(attributes: Attributes, row: Usage, finishReasons: readonly string[] | undefined): void {
  set(attributes, GEN_AI.inputTokens, row.promptTokens);
  set(attributes, GEN_AI.outputTokens, row.completionTokens);
  set(attributes, GEN_AI.cacheReadInputTokens, row.cachedTokens);
  set(attributes, GEN_AI.cacheCreationInputTokens, row.cacheWriteTokens);
  set(attributes, GEN_AI.reasoningOutputTokens, row.reasoningTokens);
  if (finishReasons && finishReasons.length > 0) set(attributes, GEN_AI.responseFinishReasons, [...finishReasons]);
}

/** The request's (SERVER) span: what the client asked, what it got, what it cost. */
export function requestAttributes(row: NewRequestLogRow, finishReasons: readonly string[] | undefined, responseModel?: string): Attributes {
  const attributes: Attributes = {};
  set(attributes, GEN_AI.responseModel, responseModel);
  set(attributes, GEN_AI.operationName, operationName(row.route));
  set(attributes, GEN_AI.providerName, row.provider);
  set(attributes, GEN_AI.system, row.provider);
  set(attributes, GEN_AI.requestModel, row.model);
  set(attributes, GEN_AI.requestStream, row.streamMode ?? false);
  setUsage(attributes, row, finishReasons);
  if (row.streamMode && typeof row.firstByteMs === 'number') set(attributes, GEN_AI.responseTimeToFirstChunk, row.firstByteMs / 1000);
  set(attributes, ATTR_HTTP_REQUEST_METHOD, row.method);
  set(attributes, ATTR_HTTP_RESPONSE_STATUS_CODE, row.status);
  set(attributes, ATTR_URL_PATH, row.path);
  if (!row.isSuccess) set(attributes, ATTR_ERROR_TYPE, row.error && typeof row.error.type === 'string' ? row.error.type : String(row.status));
  // the log's own trace id (it may be a UUID, or differ when a traceparent named the trace): the way back to the row
  set(attributes, 'gateway.trace_id', row.traceId);
  set(attributes, 'gateway.route', row.route);
  set(attributes, 'gateway.cache.status', row.cacheStatus);
  set(attributes, 'gateway.retry_count', row.retryCount);
  set(attributes, 'gateway.last_used_option_index', row.lastUsedOptionIndex);
  set(attributes, 'gateway.queue_time_ms', row.queueTimeMs);
  set(attributes, 'gateway.upstream_time_ms', row.upstreamTimeMs);
  const cost = row.cost === null || row.cost === undefined ? Number.NaN : Number(row.cost);
  if (Number.isFinite(cost)) set(attributes, 'gateway.cost_usd', cost);
  return attributes;
}

/** failed when the try got no answer, an error status, or an error the gateway noted */
export function attemptFailed(attempt: AttemptLog): boolean {
  return attempt.error !== null || attempt.status === null || attempt.status >= 400;
}

/**
 * One upstream try's (CLIENT) span. The try that gave the chosen answer (`answered`) carries the usage and the
 * finish reasons: the conventions put them on the call to the model.
 */
export function attemptAttributes(row: NewRequestLogRow, attempt: AttemptLog, answered: { finishReasons: readonly string[] | undefined } | undefined): Attributes {
  const attributes: Attributes = {};
  set(attributes, GEN_AI.operationName, operationName(row.route));
  set(attributes, GEN_AI.providerName, attempt.provider);
  set(attributes, GEN_AI.system, attempt.provider);
  set(attributes, GEN_AI.requestModel, attempt.model);
  set(attributes, ATTR_HTTP_RESPONSE_STATUS_CODE, attempt.status);
  if (attemptFailed(attempt)) set(attributes, ATTR_ERROR_TYPE, attempt.error?.type ?? (attempt.status === null ? 'no_answer' : String(attempt.status)));
  set(attributes, 'gateway.attempt.path', attempt.path);
  set(attributes, 'gateway.attempt.retry', attempt.retry);
  if (answered) {
    setUsage(attributes, row, answered.finishReasons);
  }
  return attributes;
}
