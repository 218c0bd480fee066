/**
 * The Messages route in the response cache: every entry is a Message, whatever produced it (a native Anthropic
 * answer or stream as it came; a translated chat answer or stream converted as the client got it), so a hit
 * answers a Message, or the Messages event stream when the request streams. The key carries the route: no chat
 * completion is ever served here.
 */
import type { FastifyReply } from 'fastify';
import { assembleFromStream } from '../cache/assemble.ts';
import type { CacheForm } from '../cache/cache-form.ts';
import { isStreaming } from '../cache/pipeline.ts';
import type { CachedAnswer } from '../cache/response-cache.ts';
import type { ChatCompletion } from '../core/openai-types.ts';
import { assembleMessage, chatToMessage, isChatCompletion, isMessage, messageEvents } from '../providers/anthropic/inbound/index.ts';
import type { InferenceCall } from '../providers/contract.ts';

const isChatChunk = (value: unknown) => typeof value === 'object' && value !== null && (value as { object?: unknown }).object === 'chat.completion.chunk';

export const messagesCacheForm: CacheForm = {
  fromJson(answer) {
    if (isChatCompletion(answer.canonical)) return JSON.stringify(chatToMessage(answer.canonical));
    if (!isMessage(answer.canonical)) return undefined;
    return answer.unchanged ? answer.text : JSON.stringify(answer.canonical);
  },
  fromStream(chunks) {
    // a translated stream's chunks are canonical chat chunks; a native stream's, the Messages events
    if (chunks.some(isChatChunk)) {
      const chat = assembleFromStream(chunks);
      return chat?.object === 'chat.completion' ? JSON.stringify(chatToMessage(chat as ChatCompletion)) : undefined;
    }
    const message = assembleMessage(chunks);
    return message && JSON.stringify(message);
  },
};

/** A stored Message, as JSON or replayed as the Messages event stream. */
export function serveCachedMessage(reply: FastifyReply, cached: CachedAnswer, call: InferenceCall, gatewayHeaders: Record<string, string>): void {
  let message: unknown;
  try {
    message = isStreaming(call) ? JSON.parse(cached.body) : undefined;
  } catch {
    message = undefined;
  }
  if (!isMessage(message)) {
    reply.code(cached.status).headers(gatewayHeaders).header('content-type', cached.contentType).send(cached.body);
    return;
  }
  const frames = messageEvents(message).map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...gatewayHeaders });
  reply.raw.end(frames.join(''));
}
