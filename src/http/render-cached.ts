/** Answers from the cache: the stored JSON as it was, or replayed as a stream when the request streams. */
import type { FastifyReply } from 'fastify';
import { isStreaming } from '../cache/pipeline.ts';
import { parseCacheableAnswer, replayAsStream } from '../cache/replay.ts';
import type { CachedAnswer } from '../cache/response-cache.ts';
import type { InferenceCall } from '../providers/contract.ts';

/** How a route serves its cache hits when its entries are not chat answers (a Message, a Response). */
export type ServeCached = (reply: FastifyReply, cached: CachedAnswer, call: InferenceCall, gatewayHeaders: Record<string, string>) => void | Promise<void>;

export function renderCached(reply: FastifyReply, cached: CachedAnswer, call: InferenceCall, gatewayHeaders: Record<string, string>): void {
  const answer = isStreaming(call) ? parseCacheableAnswer(cached.body) : undefined;
  if (!answer) {
    reply.code(cached.status).headers(gatewayHeaders).header('content-type', cached.contentType).send(cached.body);
    return;
  }
  const options = (call.body as { stream_options?: { include_usage?: unknown } | null }).stream_options;
  const frames = replayAsStream(answer, { includeUsage: options?.include_usage === true });
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...gatewayHeaders });
  reply.raw.end(frames.join(''));
}
