/**
 * Writes the pipeline's chosen answer to the client; it reads nothing itself (the pipeline read it once):
 * - `cached`: the stored JSON, or replayed as a stream when the request streams;
 * - `relay`: a pass-through answer exactly as received (streams too), or an OpenAI stream chunk by chunk;
 * - `stream`: decoded events written as canonical chunks; its end is judged and stored through `streamEnd`;
 * - `json`: the provider's bytes when already in our format, else the converted answer; with guardrails, the
 *   verdicts in `hook_results` (a denied answer is a 446 and nothing of it is sent);
 * - `provider-error`: the provider's status, its message in the OpenAI error shape.
 */
import type { FastifyReply } from 'fastify';
import { guardrailDenied } from '../guardrails/hooks.ts';
import { noteErrorBody, noteStreamBytes, type RequestRecord } from '../logging/request-record.ts';
import type { Outcome } from '../pipeline/outcome.ts';
import { collectingDecoder } from '../pipeline/stream-decoders.ts';
import { responsesRuntimeOf } from '../responses/runtime.ts';
import type { ResponsesRequest } from '../responses/types.ts';
import { renderCached, type ServeCached } from './render-cached.ts';
import { relayStream, translateStream } from './render-stream.ts';
import { messagesBody, relayMessagesStream, writeMessagesStream } from './render-messages.ts';
import { safeResponseHeaders } from './response-headers.ts';

/** the built-in streaming routes end with `data: [DONE]` even when the provider left it out */
const ENDS_WITH_DONE = new Set(['chat', 'completions']);

export async function renderAnswer(reply: FastifyReply, outcome: Outcome, gatewayHeaders: Record<string, string>, record: RequestRecord | undefined, serveCached: ServeCached = renderCached): Promise<void> {
  const { answer, call } = outcome;
  const streamOptions = { provider: outcome.target.provider, gatewayHeaders, timeoutMs: outcome.timeoutMs, record };
  // a Responses request run over a chat API: its stream is encoded into Responses events, its answer stored
  const overChat = call.route === 'responses.create' ? responsesRuntimeOf(outcome.adapter) : undefined;
  if (overChat && answer.kind === 'json' && !outcome.output?.outcome.denied) {
    // kept before it is sent (a denied answer is never sent, so never kept): the client may retrieve it at once
    await overChat.keep(reply.request.principal?.organisationId, call.body as ResponsesRequest, answer.canonical);
  }
  if (overChat && answer.kind === 'stream') {
    const streamEnd = outcome.streamEnd;
    const collecting = streamEnd ? collectingDecoder(answer.decoder) : undefined;
    const beforeDone = streamEnd && collecting ? () => streamEnd({ text: collecting.text(), chunks: collecting.chunks() }) : undefined;
    const stream = { attempt: answer.attempt, decoder: collecting?.decoder ?? answer.decoder, framing: answer.framing };
    const organisationId = reply.request.principal?.organisationId;
    return overChat.writeStream(reply, stream, call.body as ResponsesRequest, { ...streamOptions, organisationId, ...(beforeDone ? { beforeDone } : {}) });
  }
  switch (answer.kind) {
    case 'cached':
      return serveCached(reply, answer.cached, call, gatewayHeaders);
    case 'relay': {
      const { attempt } = answer;
      const response = attempt.response;
      const type = response.headers['content-type'];
      const isStream = String(Array.isArray(type) ? type[0] : (type ?? '')).includes('text/event-stream');
      // a native Messages stream: its bytes as they came, its usage read on the side
      if (call.route === 'messages') return relayMessagesStream(reply, attempt, streamOptions);
      if (call.route !== 'passthrough') return relayStream(reply, attempt, streamOptions, ENDS_WITH_DONE.has(call.route));
      if (isStream) return relayStream(reply, attempt, streamOptions, false);
      const headers = safeResponseHeaders(response.headers);
      const length = response.headers['content-length'];
      if (typeof length === 'string') headers['content-length'] = length;
      // two calls, not a merged copy: the later x-gateway-* values win just the same
      reply.code(answer.status).headers(headers).headers(gatewayHeaders);
      response.body.once('end', () => attempt.done(true)).once('error', () => attempt.done()).once('close', () => attempt.done());
      // the request log keeps the first bytes of a pass-through answer (references; a second reader of the same chunks)
      if (record?.logBodies) response.body.on('data', (chunk: Buffer) => noteStreamBytes(record, chunk));
      return reply.send(response.body);
    }
    case 'stream': {
      const streamEnd = outcome.streamEnd;
      if (call.route === 'messages') {
        // the Messages event stream (render-messages.ts), judged and stored at its end like any other
        const collecting = streamEnd ? collectingDecoder(answer.decoder) : undefined;
        const beforeDone = collecting && streamEnd ? () => streamEnd({ text: collecting.text(), chunks: collecting.chunks() }) : undefined;
        const model = String((call.body as { model?: unknown }).model ?? '');
        return writeMessagesStream(reply, answer.attempt, collecting?.decoder ?? answer.decoder, answer.framing, { ...streamOptions, ...(beforeDone ? { beforeDone } : {}), translated: answer.translated, model });
      }
      if (!streamEnd) return translateStream(reply, answer.attempt, answer.decoder, answer.framing, streamOptions);
      const collecting = collectingDecoder(answer.decoder);
      const beforeDone = () => streamEnd({ text: collecting.text(), chunks: collecting.chunks() });
      return translateStream(reply, answer.attempt, collecting.decoder, answer.framing, { ...streamOptions, beforeDone });
    }
    case 'provider-error':
      noteErrorBody(record, answer.body);
      reply.code(answer.status).headers(gatewayHeaders).send(answer.body);
      return;
    case 'json': {
      const verdict = outcome.output;
      if (verdict?.outcome.denied) {
        // the error renderer keeps these: a denied answer still says which target and how many retries
        reply.headers(gatewayHeaders);
        throw guardrailDenied('output', verdict.outcome.results);
      }
      if (outcome.input.length > 0 || verdict) {
        // a Messages call answered through the canonical form goes back as a Message
        const canonical = call.route === 'messages' ? messagesBody(answer.canonical, record) : answer.canonical;
        const body = typeof canonical === 'object' && canonical !== null && !Array.isArray(canonical)
          ? { ...(canonical as Record<string, unknown>), hook_results: { before_request_hooks: outcome.input, after_request_hooks: verdict?.outcome.results ?? [] } }
          : canonical;
        reply.code(200).headers(gatewayHeaders).send(body);
        return;
      }
      if (answer.unchanged) {
        // the provider already speaks our format: send its bytes, not a re-serialisation
        reply.code(answer.status).headers(safeResponseHeaders(answer.attempt.response.headers)).headers(gatewayHeaders);
        reply.header('content-type', 'application/json; charset=utf-8').send(answer.text);
        return;
      }
      reply.code(200).headers(gatewayHeaders).send(call.route === 'messages' ? messagesBody(answer.canonical, record) : answer.canonical);
      return;
    }
  }
}
