/**
 * The Responses route in the response cache: every entry is a Response (a native provider's as it came, or one
 * produced over chat, from its JSON answer or its assembled stream). A hit is replayed through the same stream
 * encoder as a live answer, so it is a fresh Response (new ids, created now), kept in the gateway's store like
 * any other it produced: `previous_response_id` continues from it, and GET /v1/responses/{id} finds it.
 */
import type { FastifyReply } from 'fastify';
import { assembleFromStream } from '../cache/assemble.ts';
import type { CacheForm } from '../cache/cache-form.ts';
import type { CachedAnswer } from '../cache/response-cache.ts';
import type { ChatCompletion, ChatCompletionChunk, FinishReason, Usage } from '../core/openai-types.ts';
import { noteResponse } from '../logging/request-record.ts';
import type { InferenceCall } from '../providers/contract.ts';
import { chatToResponse } from './from-chat.ts';
import type { ResponsesEvent, ResponsesStreamEncoder } from './stream-encoder.ts';
import type { OutputItem, ResponseObject, ResponsesIds, ResponsesRequest } from './types.ts';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isResponse(value: unknown): value is ResponseObject {
  return isRecord(value) && value.object === 'response' && Array.isArray(value.output);
}

/** The Response a native Responses stream ended with (its response.completed or response.incomplete event). */
function finalResponseOf(events: readonly unknown[]): ResponseObject | undefined {
  const last = [...events].reverse().find((event) => isRecord(event) && typeof event.type === 'string' && event.type.startsWith('response.'));
  if (!isRecord(last) || (last.type !== 'response.completed' && last.type !== 'response.incomplete')) return undefined;
  return isResponse(last.response) ? last.response : undefined;
}

export function responsesCacheForm(ids: ResponsesIds): CacheForm {
  return {
    fromJson: (answer) => (!isResponse(answer.canonical) ? undefined : answer.unchanged ? answer.text : JSON.stringify(answer.canonical)),
    fromStream(chunks, call) {
      // a stream run over chat is decoded into chat chunks; a native one into Responses events
      if (chunks.some((chunk) => isRecord(chunk) && chunk.object === 'chat.completion.chunk')) {
        const chat = assembleFromStream(chunks);
        return chat?.object === 'chat.completion' ? JSON.stringify(chatToResponse(chat as ChatCompletion, call.body as ResponsesRequest, ids)) : undefined;
      }
      const response = finalResponseOf(chunks);
      return response && JSON.stringify(response);
    },
  };
}

function finishOf(response: ResponseObject, calls: number): FinishReason {
  if (response.status === 'incomplete') return response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length';
  return calls > 0 ? 'tool_calls' : 'stop';
}

function chatUsageOf(response: ResponseObject): Usage | undefined {
  const usage = response.usage;
  if (!usage) return undefined;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0 },
  } as Usage;
}

/** A stored Response as the canonical chat chunks a live answer would have been decoded into. */
export function responseChunks(response: ResponseObject): Partial<ChatCompletionChunk>[] {
  const head = { id: response.id, object: 'chat.completion.chunk' as const, created: response.created_at, model: response.model };
  const chunk = (delta: Record<string, unknown>, finish: FinishReason | null = null) => ({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) as unknown as Partial<ChatCompletionChunk>;
  const chunks: Partial<ChatCompletionChunk>[] = [];
  let calls = 0;
  response.output.forEach((item: OutputItem, position) => {
    if (item.type === 'reasoning') {
      const thinking = item.summary.map((part) => part.text).join('');
      const signature = typeof item.encrypted_content === 'string' ? { signature: item.encrypted_content } : {};
      chunks.push(chunk({ content_blocks: [{ index: position, delta: { type: 'thinking', thinking, ...signature } }] }));
    } else if (item.type === 'message') {
      const text = item.content.map((part) => (part.type === 'output_text' ? part.text : '')).join('');
      if (text !== '') chunks.push(chunk({ content: text }));
    } else if (item.type === 'function_call') {
      chunks.push(chunk({ tool_calls: [{ index: calls++, id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }] }));
    }
  });
  const usage = chatUsageOf(response);
  chunks.push({ ...chunk({}, finishOf(response, calls)), ...(usage ? { usage } : {}) });
  return chunks;
}

export interface ServeResponseDeps {
  encoder(request: ResponsesRequest): ResponsesStreamEncoder;
  keep(organisationId: string | undefined, request: ResponsesRequest, response: ResponseObject): Promise<void>;
}

/** A stored Response served as a fresh one, kept before it is sent; as JSON or as the Responses event stream. */
export async function serveCachedResponse(reply: FastifyReply, cached: CachedAnswer, call: InferenceCall, gatewayHeaders: Record<string, string>, deps: ServeResponseDeps): Promise<void> {
  let stored: unknown;
  try {
    stored = JSON.parse(cached.body);
  } catch {
    stored = undefined;
  }
  if (!isResponse(stored)) {
    reply.code(cached.status).headers(gatewayHeaders).header('content-type', cached.contentType).send(cached.body);
    return;
  }
  const request = call.body as ResponsesRequest;
  const encoder = deps.encoder(request);
  const events: ResponsesEvent[] = [...encoder.start()];
  for (const chunk of responseChunks(stored)) events.push(...encoder.push(chunk));
  events.push(...encoder.finish());
  const response = encoder.response();
  await deps.keep(reply.request.principal?.organisationId, request, response);
  // the log keeps the fresh Response the client gets, not the stored one it was made from
  noteResponse(reply.request.logRecord, { kind: 'object', value: response });
  if (request.stream !== true) {
    reply.code(200).headers(gatewayHeaders).send(response);
    return;
  }
  events.push(...encoder.complete());
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...gatewayHeaders });
  reply.raw.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
}
