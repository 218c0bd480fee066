/**
 * Writes an upstream answer back to the client:
 * - pass-through routes: status, safe headers and body exactly as received (streams too);
 * - provider errors on built-in routes: the provider's status, its message kept, in the OpenAI error shape;
 * - streams: relayed untouched when the provider speaks OpenAI's format, else translated by the adapter's decoder;
 * - JSON answers: read whole and checked (not JSON: 502); sent as the provider's bytes when already in our format,
 *   else converted by the adapter's transform.
 */
import type { FastifyReply } from 'fastify';
import { readAnswerText, type UpstreamAttempt } from '../core/call-upstream.ts';
import { badGateway, type ErrorBody } from '../core/errors.ts';
import { UNCHANGED, type ErrorParser, type InferenceCall, type ProviderAdapter, type ProviderTarget } from '../providers/contract.ts';
import { collectingDecoder, identityDecoder, runOutputGuardrails, sendGuarded, type OutputGuardrails } from './render-guarded.ts';
import type { StoreAnswer } from '../cache/pipeline.ts';
import { guardrailDenied } from '../guardrails/hooks.ts';
import { noteAnswer, noteErrorBody, noteOutputVerdicts, type RequestRecord } from '../logging/request-record.ts';
import { relayStream, translateStream } from './render-stream.ts';
import { safeResponseHeaders } from './response-headers.ts';

export { safeResponseHeaders } from './response-headers.ts';

const ENDS_WITH_DONE = new Set(['chat', 'completions']);

export interface RenderOptions {
  call: InferenceCall;
  target: ProviderTarget;
  adapter: ProviderAdapter;
  /** x-gateway-* headers for the answer */
  gatewayHeaders: Record<string, string>;
  timeoutMs: number | undefined;
  /** guardrails that ran on the request, and those to run on the answer */
  guardrails?: OutputGuardrails | undefined;
  /** stores a successful answer in the response cache (the target caches) */
  store?: StoreAnswer | undefined;
  /** the request log's record of this request: usage, output verdicts and errors are noted in it */
  record?: RequestRecord | undefined;
}

function contentTypeOf(attempt: UpstreamAttempt): string {
  const value = attempt.response.headers['content-type'];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export async function renderUpstream(reply: FastifyReply, attempt: UpstreamAttempt, options: RenderOptions): Promise<void> {
  const { response } = attempt;
  const status = response.statusCode;
  const { call, target, adapter } = options;
  const streamOptions = { provider: target.provider, gatewayHeaders: options.gatewayHeaders, timeoutMs: options.timeoutMs, record: options.record };

  if (call.route === 'passthrough') {
    if (contentTypeOf(attempt).includes('text/event-stream')) return relayStream(reply, attempt, streamOptions, false);
    const headers = safeResponseHeaders(response.headers);
    const length = response.headers['content-length'];
    if (typeof length === 'string') headers['content-length'] = length;
    // two calls, not a merged copy: the later x-gateway-* values win just the same
    reply.code(status).headers(headers).headers(options.gatewayHeaders);
    response.body.once('end', () => attempt.done(true)).once('error', () => attempt.done()).once('close', () => attempt.done());
    return reply.send(response.body);
  }

  if (status < 300) {
    const guarded = options.guardrails && options.guardrails.output.length > 0 ? options.guardrails : undefined;
    const native = adapter.streamDecoder?.(call, target);
    let decoder = native;
    // output guardrails and the cache read a stream whole: an OpenAI-format stream is then re-framed, not relayed
    if (!decoder && (guarded || options.store) && contentTypeOf(attempt).includes('text/event-stream')) decoder = identityDecoder();
    if (decoder && (guarded || options.store)) {
      const { decoder: collecting, text, chunks } = collectingDecoder(decoder);
      const beforeDone = async () => {
        if (guarded) {
          const outcome = await runOutputGuardrails(guarded, call, { choices: [{ message: { content: text() } }] });
          noteOutputVerdicts(options.record, outcome.results);
          if (outcome.denied) return guardrailDenied('output', outcome.results);
        }
        options.store?.stream(chunks());
        return undefined;
      };
      return translateStream(reply, attempt, collecting, native ? adapter.capabilities.framing : 'sse', { ...streamOptions, beforeDone });
    }
    if (decoder) return translateStream(reply, attempt, decoder, adapter.capabilities.framing, streamOptions);
    if (contentTypeOf(attempt).includes('text/event-stream')) {
      return relayStream(reply, attempt, streamOptions, ENDS_WITH_DONE.has(call.route));
    }
  }

  // Built-in routes read the whole (small) answer: it must be JSON, and its usage is what the request log needs.
  // the executor may have read and judged the answer already (output guardrails that retry or fall back)
  const judged = options.guardrails?.judged;
  const text = judged ? judged.text : await readAnswerText(attempt, target, options.timeoutMs);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (status >= 300) return sendProviderError(reply, status, text, options, adapter.parseError);
    throw badGateway(`Provider "${target.provider}" answered with a body that is not JSON.`);
  }
  if (status >= 300) return sendProviderError(reply, status, json, options, adapter.parseError);
  const transform = adapter.responseTransform(call.route);
  if (options.guardrails && (options.guardrails.input.length > 0 || options.guardrails.output.length > 0)) {
    return sendGuarded(reply, json, transform, options.guardrails, options);
  }
  let converted: unknown = UNCHANGED;
  try {
    if (transform) converted = transform(json, call, target);
  } catch (error) {
    throw badGateway(`Provider "${target.provider}" answered in an unexpected shape: ${(error as Error).message}`);
  }
  noteAnswer(options.record, converted === UNCHANGED ? json : converted);
  options.store?.json(status, converted === UNCHANGED ? text : JSON.stringify(converted));
  if (converted === UNCHANGED) {
    // the provider already speaks our format: send its bytes, not a re-serialisation
    reply.code(status).headers(safeResponseHeaders(response.headers)).headers(options.gatewayHeaders);
    reply.header('content-type', 'application/json; charset=utf-8').send(text);
    return;
  }
  reply.code(200).headers(options.gatewayHeaders).send(converted);
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

/** Keeps the provider's status and message, in the OpenAI error shape. */
function sendProviderError(reply: FastifyReply, status: number, body: unknown, options: RenderOptions, parse: ErrorParser | undefined): void {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const inner = record?.error as Record<string, unknown> | undefined;
  if (!parse && typeof inner === 'object' && inner !== null && typeof inner.message === 'string') {
    // already the OpenAI error shape: pass it as the provider wrote it
    noteErrorBody(options.record, body);
    reply.code(status).headers(options.gatewayHeaders).send(body);
    return;
  }
  const parsed = (parse ?? ((_status, value) => defaultErrorMessage(value)))(status, body) ?? defaultErrorMessage(body);
  const error: ErrorBody = {
    error: {
      message: parsed?.message ?? `Provider "${options.target.provider}" answered with status ${status}.`,
      type: parsed?.type ?? 'upstream_error',
      param: null,
      code: parsed?.code ?? `provider_status_${status}`,
    },
  };
  noteErrorBody(options.record, error);
  reply.code(status).headers(options.gatewayHeaders).send(error);
}
