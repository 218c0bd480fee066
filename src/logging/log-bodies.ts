/**
 * Request and response bodies for the request log: built when the row is built (after the answer has gone), cut
 * at a byte cap with the cut marked. A streamed answer is reassembled into one object first. Nothing here runs
 * while the request is being answered.
 */
import type { LoggedResponse, RequestRecord } from './request-record.ts';
import { finishReasonsOf } from './finish-reasons.ts';
import { reassembleChunks } from './reassemble-stream.ts';
import { decodedChunks, looksLikeEventStream, sseObjectsOfPieces } from './sse-events.ts';
import { responseAtEnd, type StreamTail } from './stream-end.ts';
import { foldedChunksAnswer } from './stream-fold.ts';

/** Each body is cut at this many bytes by default (GATEWAY_LOG_BODY_MAX_BYTES). */
export const DEFAULT_BODY_CAP = 64 * 1024;

export interface CappedText {
  text: string;
  truncated: boolean;
}

/** Cuts at `cap` bytes of UTF-8 (a character split by the cut is dropped, never half-kept). */
export function capText(text: string, cap: number): CappedText {
  // a string of n UTF-16 units is at most 3n bytes: most bodies skip the byte count
  if (text.length * 3 <= cap || Buffer.byteLength(text) <= cap) return { text, truncated: false };
  const bytes = Buffer.from(text).subarray(0, cap);
  return { text: bytes.toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}

/**
 * A capped text with its finish reasons and, for a reassembled stream, its model (fields written out: a spread of
 * `capped` showed in CPU profiles).
 */
function withReasons(capped: CappedText, finishReasons: string[] | undefined, answer?: unknown): ResponseText {
  const model = typeof answer === 'object' && answer !== null ? (answer as { model?: unknown }).model : undefined;
  return { text: capped.text, truncated: capped.truncated, finishReasons, model: typeof model === 'string' ? model : undefined };
}

function capBuffer(buffer: Buffer, cap: number): CappedText {
  if (buffer.length <= cap) return { text: buffer.toString('utf8'), truncated: false };
  return { text: buffer.subarray(0, cap).toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}

/** The same for a body kept as the chunks it came in (`size` bytes in all): only the chunks the cap reaches are joined. */
function capBuffers(buffers: readonly Buffer[], size: number, cap: number): CappedText {
  if (size <= cap) return { text: (buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers, size)).toString('utf8'), truncated: false };
  let kept = 0;
  let count = 0;
  while (kept < cap && count < buffers.length) kept += buffers[count++]!.length;
  return { text: Buffer.concat(buffers.slice(0, count), kept).subarray(0, cap).toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}

/** A body from a stream that lost parts past what was kept (`dropped`) is cut, whatever its size. */
function cut(capped: CappedText, dropped: boolean | undefined): CappedText {
  return dropped && !capped.truncated ? { text: capped.text, truncated: true } : capped;
}

/** The body as received: its raw bytes when the parser kept them, else the parsed value as JSON. */
export function requestBodyText(rawBody: Buffer | undefined, body: unknown, cap: number): CappedText | undefined {
  if (rawBody) return capBuffer(rawBody, cap);
  if (body === undefined || body === null) return undefined;
  return capText(typeof body === 'string' ? body : JSON.stringify(body), cap);
}

export interface ResponseText extends CappedText {
  finishReasons: string[] | undefined;
  /** a reassembled stream's model (read once here, so the row need not read the stream's tail again for it) */
  model: string | undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The answer the client got as text (a stream folded into one object); undefined when nothing was kept. With
 * `reasonsKnown` (the record has them already), a JSON text is not parsed again for its finish reasons.
 */
export function responseBodyText(response: LoggedResponse | undefined, cap: number, reasonsKnown = false, tail?: StreamTail): ResponseText | undefined {
  if (!response) return undefined;
  switch (response.kind) {
    case 'text': {
      const capped = capText(response.text, cap);
      return withReasons(capped, capped.truncated || reasonsKnown ? undefined : finishReasonsOf(parsed(response.text)));
    }
    case 'object':
      return withReasons(cut(capText(JSON.stringify(response.value), cap), response.dropped), finishReasonsOf(response.value));
    case 'chunks': {
      const folder = response.folder;
      if (folder) {
        // a long stream, folded in parts as it passed (stream-fold.ts)
        const answer = foldedChunksAnswer(response, folder);
        return withReasons(cut(capText(JSON.stringify(answer), cap), response.dropped || folder.overflowed), finishReasonsOf(answer), answer);
      }
      const answer = reassembleChunks(response.chunks);
      return withReasons(cut(capText(JSON.stringify(answer ?? response.chunks), cap), response.dropped), finishReasonsOf(answer), answer);
    }
    case 'bytes': {
      const fold = response.fold;
      if (fold) {
        const answer = fold.answer(response.buffers);
        return withReasons(cut(capText(JSON.stringify(answer), cap), response.dropped || fold.cut), finishReasonsOf(answer), answer);
      }
      // a stream's events read chunk by chunk (sse-events.ts), without first making one text of them all; one that is
      // not made of chat or text completion chunks (a Messages or Responses stream) is kept as its text, of which
      // only what the cap keeps is decoded
      if (looksLikeEventStream(response.buffers)) {
        const events = sseObjectsOfPieces(decodedChunks(response.buffers), { merged: true, completionChunks: true });
        const answer = events && reassembleChunks(events);
        if (answer) return withReasons(cut(capText(JSON.stringify(answer), cap), response.dropped), finishReasonsOf(answer), answer);
        // a Responses stream: the Response its last event carries, whole however long the stream (stream-end.ts)
        const final = tail && responseAtEnd(tail);
        if (final) return withReasons(capText(JSON.stringify(final), cap), finishReasonsOf(final), final);
      }
      const capped = cut(capBuffers(response.buffers, response.size, cap), response.dropped);
      return withReasons(capped, capped.truncated || reasonsKnown ? undefined : finishReasonsOf(parsed(capped.text)));
    }
  }
}

/** Whether this request's bodies are logged: the workspace's setting, then `x-gateway-debug: false`. */
export function logsBodies(record: RequestRecord, debugHeader: string | string[] | undefined): boolean {
  if (!record.logBodies) return false;
  const value = Array.isArray(debugHeader) ? debugHeader[0] : debugHeader;
  return value === undefined || value.trim().toLowerCase() !== 'false';
}
