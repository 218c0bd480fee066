/**
 * Streams to the client. `relayStream` passes an OpenAI-format stream through chunk by chunk; `translateStream`
 * frames a provider's stream (SSE or AWS event-stream), runs the adapter's decoder and writes canonical chunks.
 * Both write with backpressure, end chat and completions streams with `data: [DONE]`, and end a broken stream
 * with a data-only error event and a closed connection.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { UpstreamAttempt } from '../pipeline/call-upstream.ts';
import { GatewayError, badGateway, requestTimeout } from '../core/errors.ts';
import type { StreamDecoder, StreamFraming } from '../providers/contract.ts';
import { createFramer } from '../upstream/framing/index.ts';
import { safeResponseHeaders } from './response-headers.ts';
import { noteChunk, noteErrorBody, noteStreamBytes, noteStreamed, noteStreamTail, type RequestRecord } from '../logging/request-record.ts';
import { chunksUntilBroken } from '../core/readable-chunks.ts';
import { waitForDrain } from '../core/wait-for-drain.ts';
import { pumpDecoded } from '../upstream/framing/pump.ts';

export interface StreamOptions {
  provider: string;
  gatewayHeaders: Record<string, string>;
  timeoutMs: number | undefined;
  /** runs after the last chunk, before `data: [DONE]`; an error it returns ends the stream instead (guardrails) */
  beforeDone?: () => Promise<GatewayError | undefined>;
  /** the request log's record: the stream's usage and any error event written are noted in it */
  record?: RequestRecord | undefined;
}

/** What a broken stream ends with: the timeout when it fired, the gateway's error, or a 502 naming the provider. */
export function failureOf(error: unknown, attempt: UpstreamAttempt, options: StreamOptions): GatewayError {
  if (attempt.timedOut() && options.timeoutMs !== undefined) return requestTimeout(options.timeoutMs);
  if (error instanceof GatewayError) return error;
  return badGateway(`The stream from "${options.provider}" broke: ${(error as Error).message}`, 'stream_interrupted');
}

function open(reply: FastifyReply, attempt: UpstreamAttempt, headers: Record<string, string | string[]>, record: RequestRecord | undefined): ServerResponse {
  noteStreamed(record, headers);
  reply.hijack();
  const raw = reply.raw;
  raw.on('close', () => attempt.done());
  // headers leave with the first chunk (one write, not two); providers send their first event at once
  raw.writeHead(attempt.response.statusCode, headers);
  return raw;
}

export async function relayStream(reply: FastifyReply, attempt: UpstreamAttempt, options: StreamOptions, ensureDone: boolean): Promise<void> {
  const { response } = attempt;
  const raw = open(reply, attempt, { ...safeResponseHeaders(response.headers), 'cache-control': 'no-cache', ...options.gatewayHeaders }, options.record);
  let tail = '';
  // the last two chunks as received (references, no copies): the usage of the final chunk is read from them
  let previous: Buffer | undefined;
  let last: Buffer | undefined;
  let completed = false;
  try {
    for await (const chunk of chunksUntilBroken(response.body)) {
      if (raw.destroyed) break;
      const buffer = chunk as Buffer;
      if (ensureDone) tail = (tail + buffer.toString('latin1', Math.max(0, buffer.length - 64))).slice(-64);
      previous = last;
      last = buffer;
      const flowing = raw.write(buffer);
      // after the write: a long stream's kept part is folded here now and then (~0.25 ms a 256 KB), not before it goes
      noteStreamBytes(options.record, buffer);
      if (!flowing) await waitForDrain(raw);
    }
    completed = !raw.destroyed;
    noteStreamTail(options.record, previous, last);
    if (ensureDone && !raw.destroyed && !tail.includes('[DONE]')) raw.write('data: [DONE]\n\n');
  } catch (error) {
    const failure = failureOf(error, attempt, options).toBody();
    noteErrorBody(options.record, failure);
    if (!raw.destroyed) raw.write(`data: ${JSON.stringify(failure)}\n\n`);
  } finally {
    attempt.done(completed);
    raw.end();
  }
}

export async function translateStream(
  reply: FastifyReply,
  attempt: UpstreamAttempt,
  decoder: StreamDecoder,
  framing: StreamFraming,
  options: StreamOptions,
): Promise<void> {
  const raw = open(reply, attempt, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...options.gatewayHeaders,
  }, options.record);
  const framer = createFramer(framing);
  let completed = false;
  const write = async (chunks: unknown[]) => {
    for (const chunk of chunks) {
      if (raw.destroyed) return;
      noteChunk(options.record, chunk);
      if (!raw.write(`data: ${JSON.stringify(chunk)}\n\n`)) await waitForDrain(raw);
    }
  };
  try {
    await pumpDecoded(chunksUntilBroken(attempt.response.body), framer, decoder, () => raw.destroyed, write);
    completed = !raw.destroyed;
    const stop = options.beforeDone ? (await options.beforeDone())?.toBody() : undefined;
    noteErrorBody(options.record, stop);
    if (!raw.destroyed) raw.write(stop ? `data: ${JSON.stringify(stop)}\n\n` : 'data: [DONE]\n\n');
  } catch (error) {
    const failure = failureOf(error, attempt, options).toBody();
    noteErrorBody(options.record, failure);
    if (!raw.destroyed) raw.write(`data: ${JSON.stringify(failure)}\n\n`);
  } finally {
    attempt.done(completed);
    raw.end();
  }
}
