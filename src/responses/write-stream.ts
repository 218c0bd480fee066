/**
 * Writes a Responses stream run over a chat API: the provider's stream is framed and decoded into canonical chat
 * chunks (noted in the request log as a chat stream's are: usage, first byte, body), each encoded into Responses
 * events written as `event: <type>` / `data: <json>` with backpressure. At the end the stream's end step runs
 * (guardrails, cache), the Response is stored, then `response.completed` goes out: a client that saw it can
 * retrieve the response at once. A broken stream ends with an `error` event; no `[DONE]` (OpenAI sends none).
 */
import type { FastifyReply } from 'fastify';
import { GatewayError, badGateway, requestTimeout } from '../core/errors.ts';
import { noteChunk, noteErrorBody, noteResponse, noteStreamed, type RequestRecord } from '../logging/request-record.ts';
import type { UpstreamAttempt } from '../pipeline/call-upstream.ts';
import type { StreamDecoder, StreamFraming } from '../providers/contract.ts';
import { createFramer } from '../upstream/framing/index.ts';
import type { ResponsesEvent, ResponsesStreamEncoder } from './stream-encoder.ts';
import type { ResponseObject } from './types.ts';
import { chunksUntilBroken } from '../core/readable-chunks.ts';
import { waitForDrain } from '../core/wait-for-drain.ts';
import { pumpDecoded } from '../upstream/framing/pump.ts';

export interface ResponsesStreamOptions {
  provider: string;
  gatewayHeaders: Record<string, string>;
  timeoutMs: number | undefined;
  record: RequestRecord | undefined;
  /** after the last chunk: an error it returns ends the stream instead of response.completed */
  beforeDone?: () => Promise<GatewayError | undefined>;
  /** stores the finished response (before response.completed is written) */
  onResponse: (response: ResponseObject) => Promise<void>;
}

export async function writeResponsesStream(
  reply: FastifyReply,
  stream: { attempt: UpstreamAttempt; decoder: StreamDecoder; framing: StreamFraming },
  encoder: ResponsesStreamEncoder,
  options: ResponsesStreamOptions,
): Promise<void> {
  const { attempt, decoder } = stream;
  const headers = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...options.gatewayHeaders };
  noteStreamed(options.record, headers);
  reply.hijack();
  const raw = reply.raw;
  raw.on('close', () => attempt.done());
  raw.writeHead(attempt.response.statusCode, headers);
  const framer = createFramer(stream.framing);
  let completed = false;
  const send = async (events: ResponsesEvent[]) => {
    for (const event of events) {
      if (raw.destroyed) return;
      if (!raw.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)) await waitForDrain(raw);
    }
  };
  const take = async (chunks: unknown[]) => {
    for (const chunk of chunks) {
      noteChunk(options.record, chunk);
      await send(encoder.push(chunk));
    }
  };
  try {
    await send(encoder.start());
    await pumpDecoded(chunksUntilBroken(attempt.response.body), framer, decoder, () => raw.destroyed, take);
    completed = !raw.destroyed;
    await send(encoder.finish());
    const stop = options.beforeDone ? await options.beforeDone() : undefined;
    if (stop) throw stop;
    const response = encoder.response();
    await options.onResponse(response);
    // the log keeps the Response the client was streamed, not the chat chunks it was made from
    noteResponse(options.record, { kind: 'object', value: response });
    await send(encoder.complete());
  } catch (error) {
    const failure = attempt.timedOut() && options.timeoutMs !== undefined
      ? requestTimeout(options.timeoutMs)
      : error instanceof GatewayError ? error : badGateway(`The stream from "${options.provider}" broke: ${(error as Error).message}`, 'stream_interrupted');
    const body = failure.toBody();
    noteErrorBody(options.record, body);
    await send(encoder.fail(body.error));
  } finally {
    attempt.done(completed);
    raw.end();
  }
}
