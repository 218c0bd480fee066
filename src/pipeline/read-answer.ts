/**
 * Reading the answer, once: the one place an upstream answer is read and put into the canonical (OpenAI) shape.
 * The executor reads every answer here before it chooses one (so output guardrails, retries and fallbacks see the
 * same thing the client will get), the renderer writes what it was handed, and the semantic cache's embedding
 * call reads its answer here too.
 *
 * - `relay`: pass-through answers and OpenAI-format streams nobody needs to read: sent on untouched, never read.
 * - `stream`: a stream to decode (a provider format, or an OpenAI stream that guardrails or the cache must see).
 * - `json`: a 2xx answer of a built-in route, read whole and converted; `unchanged` keeps the provider's bytes.
 * - `provider-error`: a non-2xx answer of a built-in route, its message kept in the OpenAI error shape.
 */
import { readAnswerText, type UpstreamAttempt } from './call-upstream.ts';
import { badGateway, type ErrorBody } from '../core/errors.ts';
import { UNCHANGED, type ErrorParser, type InferenceCall, type ProviderAdapter, type ProviderTarget, type StreamDecoder, type StreamFraming } from '../providers/contract.ts';
import { identityDecoder } from './stream-decoders.ts';

export type Answer =
  | { kind: 'relay'; status: number; attempt: UpstreamAttempt }
  | { kind: 'stream'; status: number; attempt: UpstreamAttempt; decoder: StreamDecoder; framing: StreamFraming; translated: boolean }
  | { kind: 'json'; status: number; attempt: UpstreamAttempt; text: string; canonical: unknown; unchanged: boolean }
  | { kind: 'provider-error'; status: number; attempt: UpstreamAttempt; body: unknown; passedThrough: boolean };

export interface ReadContext {
  adapter: ProviderAdapter;
  target: ProviderTarget;
  call: InferenceCall;
  timeoutMs: number | undefined;
  /** something must see the stream's chunks (output guardrails, the cache): an OpenAI stream is then decoded too */
  collectsStream: boolean;
}

function contentTypeOf(attempt: UpstreamAttempt): string {
  const value = attempt.response.headers['content-type'];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export async function readAnswer(attempt: UpstreamAttempt, context: ReadContext): Promise<Answer> {
  const { adapter, target, call } = context;
  const status = attempt.response.statusCode;
  const isEventStream = contentTypeOf(attempt).includes('text/event-stream');
  if (call.route === 'passthrough') return { kind: 'relay', status, attempt };
  if (status < 300) {
    const native = adapter.streamDecoder?.(call, target);
    if (native) return { kind: 'stream', status, attempt, decoder: native, framing: adapter.capabilities.framing, translated: true };
    if (isEventStream) {
      return context.collectsStream
        ? { kind: 'stream', status, attempt, decoder: identityDecoder(), framing: 'sse', translated: false }
        : { kind: 'relay', status, attempt };
    }
  }
  // a built-in route's (small) answer is read whole: it must be JSON, and its usage is what the request log needs
  const text = await readAnswerText(attempt, target, context.timeoutMs);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status >= 300) return providerError(status, attempt, text, target, adapter.parseError);
    throw badGateway(`Provider "${target.provider}" answered with a body that is not JSON.`);
  }
  if (status >= 300) return providerError(status, attempt, json, target, adapter.parseError);
  const transform = adapter.responseTransform(call.route);
  let converted: unknown = UNCHANGED;
  try {
    if (transform) converted = transform(json, call, target);
  } catch (error) {
    throw badGateway(`Provider "${target.provider}" answered in an unexpected shape: ${(error as Error).message}`);
  }
  return converted === UNCHANGED
    ? { kind: 'json', status, attempt, text, canonical: json, unchanged: true }
    : { kind: 'json', status, attempt, text, canonical: converted, unchanged: false };
}

function defaultErrorMessage(body: unknown): { message: string; type?: string; code?: string } | undefined {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const inner = record?.error;
  if (typeof inner === 'object' && inner !== null) {
    const fields = inner as Record<string, unknown>;
    if (typeof fields.message === 'string') {
      return {
        message: fields.message,
        ...(typeof fields.type === 'string' ? { type: fields.type } : {}),
        ...(typeof fields.code === 'string' ? { code: fields.code } : {}),
      };
    }
  }
  if (typeof inner === 'string' && inner) return { message: inner };
  if (typeof record?.message === 'string') return { message: record.message };
  if (typeof body === 'string' && body.trim()) return { message: body.slice(0, 2000) };
  return undefined;
}

/** Keeps the provider's status and message, in the OpenAI error shape (an OpenAI-shaped error passes as written). */
function providerError(status: number, attempt: UpstreamAttempt, body: unknown, target: ProviderTarget, parse: ErrorParser | undefined): Answer {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const inner = record?.error as Record<string, unknown> | undefined;
  if (!parse && typeof inner === 'object' && inner !== null && typeof inner.message === 'string') {
    return { kind: 'provider-error', status, attempt, body, passedThrough: true };
  }
  const parsed = (parse ?? ((_status, value) => defaultErrorMessage(value)))(status, body) ?? defaultErrorMessage(body);
  const error: ErrorBody = {
    error: {
      message: parsed?.message ?? `Provider "${target.provider}" answered with status ${status}.`,
      type: parsed?.type ?? 'upstream_error',
      param: null,
      code: parsed?.code ?? `provider_status_${status}`,
    },
  };
  return { kind: 'provider-error', status, attempt, body: error, passedThrough: false };
}
