/**
 * Writes a Messages API answer (POST /v1/messages). The pipeline hands over either the provider's own Message (a
 * target that speaks Messages natively: sent as it came) or the canonical chat answer, which becomes a Message here;
 * a stream of canonical chunks becomes the Messages event stream (`event: <type>` + `data: <json>` per event,
 * no `[DONE]`), and a native stream read as events (guardrails or the cache watching it) is framed back as it came.
 * A native stream nobody needs to read is relayed byte for byte; its usage (input and cache counts in
 * message_start, output in message_delta) is read on the side for the log, the limits and the cost.
 * A stream that breaks ends with an `error` event in the Messages shape, which the Anthropic SDKs raise.
 */
import type { FastifyReply } from 'fastify';
import type { GatewayError } from '../core/errors.ts';
import { noteChunk, noteErrorBody, noteResponse, noteStreamBytes, noteStreamed, type RequestRecord } from '../logging/request-record.ts';
import { eventReader } from '../logging/sse-events.ts';
import { FOLDED_TEXT_LIMIT } from '../logging/stream-fold.ts';
import { usageOf } from '../logging/usage.ts';
import type { UpstreamAttempt } from '../pipeline/call-upstream.ts';
import { chatToMessage, createMessagesStreamEncoder, isChatCompletion, MessageAssembler, TEXT_DELTA } from '../providers/anthropic/inbound/index.ts';
import type { StreamDecoder, StreamFraming } from '../providers/contract.ts';
import { createFramer } from '../upstream/framing/index.ts';
import { safeResponseHeaders } from './response-headers.ts';
import { failureOf, type StreamOptions } from './render-stream.ts';
import { chunksUntilBroken } from '../core/readable-chunks.ts';
import { waitForDrain } from '../core/wait-for-drain.ts';
import { pumpDecoded } from '../upstream/framing/pump.ts';

/** The canonical chat answer as a Message (the request log keeps the Message); anything else (a native Message) as it is. */
export function messagesBody(canonical: unknown, record?: RequestRecord): unknown {
  if (!isChatCompletion(canonical)) return canonical;
  const message = chatToMessage(canonical);
  noteResponse(record, { kind: 'object', value: message });
  return message;
}

/**
 * The Messages events a client was sent, for the request log: assembled as they pass into the Message they carry
 * (up to FOLDED_TEXT_LIMIT characters of text, past which the logged body is marked as cut), and the first
 * LOGGED_EVENTS of them kept for a stream that does not assemble (a broken one), which is then logged as its events.
 * A relayed stream's events come as their data (`pushData`): its text deltas are read from a template and come as
 * runs, one event a run (src/logging/sse-events.ts), which assemble to the same Message; the others are parsed.
 */
function sentEvents(record: RequestRecord | undefined): { push(event: unknown): void; pushData(data: string): void; end(): void } {
  if (!record?.logBodies) return { push: () => undefined, pushData: () => undefined, end: () => undefined };
  const assembler = new MessageAssembler(FOLDED_TEXT_LIMIT);
  const events: unknown[] = [];
  const relayed = eventReader(TEXT_DELTA, { merged: true });
  let dropped = false;
  const push = (event: unknown) => {
    assembler.add(event);
    if (events.length < LOGGED_EVENTS) events.push(event);
    else dropped = true;
  };
  return {
    push,
    pushData(data) {
      relayed.read(data);
      for (const event of relayed.take()) push(event);
    },
    end() {
      for (const event of relayed.events()) push(event);
      const message = assembler.message();
      noteResponse(record, message ? { kind: 'object', value: message, dropped: assembler.overflowed } : { kind: 'chunks', chunks: events, dropped });
    },
  };
}

/** The Messages stream's error event: https://docs.anthropic.com/en/docs/build-with-claude/streaming#error-events */
function errorEvent(error: GatewayError): string {
  const body = error.toBody();
  const type = error.status === 429 ? 'rate_limit_error' : error.status >= 500 ? 'api_error' : 'invalid_request_error';
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: body.error.message } })}\n\n`;
}

/** events kept for the log of a stream that does not assemble, as for a chat stream's chunks */
const LOGGED_EVENTS = 4096;

const isChatChunk = (chunk: unknown) => typeof chunk === 'object' && chunk !== null && (chunk as { object?: unknown }).object === 'chat.completion.chunk';

function frame(event: Record<string, unknown>): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

export interface MessagesStreamOptions extends StreamOptions {
  /** true when the decoder yields canonical chunks (a translated target); false: native Messages events */
  translated: boolean;
  /** the requested model, for message_start when the provider names none */
  model: string;
}

export async function writeMessagesStream(
  reply: FastifyReply,
  attempt: UpstreamAttempt,
  decoder: StreamDecoder,
  framing: StreamFraming,
  options: MessagesStreamOptions,
): Promise<void> {
  const headers = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...options.gatewayHeaders };
  noteStreamed(options.record, headers);
  reply.hijack();
  const raw = reply.raw;
  raw.on('close', () => attempt.done());
  raw.writeHead(attempt.response.statusCode, headers);
  const encoder = options.translated ? createMessagesStreamEncoder({ model: options.model }) : undefined;
  const framer = createFramer(framing);
  let completed = false;
  // a decoder may yield Messages events itself (Claude on Bedrock, read out of AWS event-stream): framed as they are
  let native = false;
  const usage = usageEvents();
  const logged = sentEvents(options.record);
  const send = async (events: readonly Record<string, unknown>[]) => {
    for (const event of events) {
      if (raw.destroyed) return;
      logged.push(event);
      if (!raw.write(frame(event))) await waitForDrain(raw);
    }
  };
  const write = async (chunks: unknown[]) => {
    for (const chunk of chunks) {
      if (raw.destroyed) return;
      // the log and the usage read the canonical chunk; the client gets its events
      noteChunk(options.record, chunk);
      if (encoder && isChatChunk(chunk)) await send(encoder.push(chunk));
      else {
        native = true;
        usage.pushEvent(chunk);
        await send([chunk as Record<string, unknown>]);
      }
    }
  };
  try {
    await pumpDecoded(chunksUntilBroken(attempt.response.body), framer, decoder, () => raw.destroyed, write);
    completed = !raw.destroyed;
    const stop = options.beforeDone ? await options.beforeDone() : undefined;
    noteErrorBody(options.record, stop?.toBody());
    if (stop) {
      if (!raw.destroyed) raw.write(errorEvent(stop));
    } else if (encoder && !native) await send(encoder.end());
  } catch (error) {
    const failure = failureOf(error, attempt, options);
    noteErrorBody(options.record, failure.toBody());
    if (!raw.destroyed) raw.write(errorEvent(failure));
  } finally {
    // a native stream's usage is spread over message_start and message_delta: the log gets the sum of both
    const counted = native ? usageOf(usage.usage()) : undefined;
    if (options.record && counted) options.record.usage = counted;
    noteStreamEnd(options.record, usage);
    // the log keeps the Message the client was streamed, not the canonical chunks it was made from
    logged.end();
    attempt.done(completed);
    raw.end();
  }
}

/**
 * A native Messages stream's stop reason, as its finish reason, and the model that answered (message_start's); a
 * translated stream's came with its chunks.
 */
function noteStreamEnd(record: RequestRecord | undefined, events: { stopReason(): string | undefined; model(): string | undefined }): void {
  if (!record) return;
  const reason = events.stopReason();
  if (reason !== undefined) record.finishReasons ??= [reason];
  record.answerModel ??= events.model();
}

/**
 * The usage a native Messages stream reports: message_start's, then each message_delta's counts over it; its stop
 * reason, from message_delta, and its model, from message_start (for the spans, whether or not the log keeps the body).
 */
function usageEvents(): { push(data: string): void; pushEvent(event: unknown): void; usage(): unknown; stopReason(): string | undefined; model(): string | undefined } {
  let usage: Record<string, unknown> | undefined;
  let stopReason: string | undefined;
  let model: string | undefined;
  const pushEvent = (value: unknown) => {
    const event = value as { type?: unknown; message?: { usage?: unknown; model?: unknown }; usage?: unknown; delta?: { stop_reason?: unknown } };
    if (event.type === 'message_start' && typeof event.message?.model === 'string') model = event.message.model;
    const counts = event.type === 'message_start' ? event.message?.usage : event.type === 'message_delta' ? event.usage : undefined;
    if (typeof counts === 'object' && counts !== null) usage = { ...usage, ...(counts as Record<string, unknown>) };
    if (event.type === 'message_delta' && typeof event.delta?.stop_reason === 'string') stopReason = event.delta.stop_reason;
  };
  return {
    push(data) {
      // two events of a stream carry usage: only those are parsed
      if (!data.includes('"message_start"') && !data.includes('"message_delta"')) return;
      try {
        pushEvent(JSON.parse(data));
      } catch {
        // not JSON: no usage in it
      }
    },
    pushEvent,
    usage: () => usage,
    stopReason: () => stopReason,
    model: () => model,
  };
}

/** A native Messages stream, relayed exactly as the provider sent it. */
export async function relayMessagesStream(reply: FastifyReply, attempt: UpstreamAttempt, options: StreamOptions): Promise<void> {
  const { response } = attempt;
  const headers = { ...safeResponseHeaders(response.headers), 'cache-control': 'no-cache', ...options.gatewayHeaders };
  noteStreamed(options.record, headers);
  reply.hijack();
  const raw = reply.raw;
  raw.on('close', () => attempt.done());
  raw.writeHead(response.statusCode, headers);
  const framer = createFramer('sse');
  const usage = usageEvents();
  const logged = sentEvents(options.record);
  const read = (data: string) => {
    usage.push(data);
    logged.pushData(data);
  };
  let completed = false;
  try {
    for await (const chunk of chunksUntilBroken(response.body)) {
      if (raw.destroyed) break;
      const buffer = chunk as Buffer;
      const flowing = raw.write(buffer);
      noteStreamBytes(options.record, buffer);
      for (const event of framer.push(buffer)) read(event.data);
      if (!flowing) await waitForDrain(raw);
    }
    for (const event of framer.end()) read(event.data);
    completed = !raw.destroyed;
    // the relayed bytes as the Message they carried (a stream that broke keeps its bytes)
    if (completed && options.record?.logBodies) logged.end();
  } catch (error) {
    const failure = failureOf(error, attempt, options);
    noteErrorBody(options.record, failure.toBody());
    if (!raw.destroyed) raw.write(errorEvent(failure));
  } finally {
    const counted = usageOf(usage.usage());
    if (options.record && counted) options.record.usage = counted;
    noteStreamEnd(options.record, usage);
    attempt.done(completed);
    raw.end();
  }
}
