/**
 * AWS event-stream framing (application/vnd.amazon.eventstream, used by Bedrock ConverseStream): bytes in, whole
 * messages out. https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html describes the binary layout:
 * a 12-byte prelude (total length, headers length, prelude CRC32), headers, payload, message CRC32.
 * The codec checks both checksums; this framer only buffers until a whole message has arrived, since network
 * chunks split messages anywhere.
 *
 * Emitted events:
 * - `:message-type` event     -> { event: <:event-type>, data: <payload as UTF-8> }
 * - `:message-type` exception -> { event: 'exception:<:exception-type>', data: <payload as UTF-8> }
 * - `:message-type` error     -> { event: 'error:<:error-code>', data: <:error-message> }
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Framer, FramedEvent } from './sse.ts';

const PRELUDE_BYTES = 12;

type Headers = ReturnType<EventStreamCodec['decode']>['headers'];

function headerText(headers: Headers, name: string): string | undefined {
  const header = headers[name];
  if (!header) return undefined;
  return typeof header.value === 'string' ? header.value : String(header.value);
}

function toEvent(headers: Headers, body: Uint8Array): FramedEvent {
  const messageType = headerText(headers, ':message-type') ?? 'event';
  if (messageType === 'exception') {
    return { event: `exception:${headerText(headers, ':exception-type') ?? 'unknown'}`, data: toUtf8(body) };
  }
  if (messageType === 'error') {
    return { event: `error:${headerText(headers, ':error-code') ?? 'unknown'}`, data: headerText(headers, ':error-message') ?? '' };
  }
  return { event: headerText(headers, ':event-type'), data: toUtf8(body) };
}

export function createAwsEventStreamFramer(): Framer {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let buffer: Buffer = Buffer.alloc(0);

  function drain(): FramedEvent[] {
    const out: FramedEvent[] = [];
    while (buffer.length >= PRELUDE_BYTES) {
      const length = buffer.readUInt32BE(0);
      if (length < PRELUDE_BYTES + 4) throw new Error(`invalid event-stream message length ${length}`);
      if (buffer.length < length) break;
      // the codec honours the view's byte offset, so no copy; the payload is read into a string at once
      const message = codec.decode(buffer.subarray(0, length));
      buffer = buffer.subarray(length);
      out.push(toEvent(message.headers, message.body));
    }
    return out;
  }

  return {
    push(chunk) {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      return drain();
    },
    end() {
      const out = drain();
      if (buffer.length > 0) throw new Error(`the event stream ended inside a message (${buffer.length} bytes left)`);
      return out;
    },
  };
}
