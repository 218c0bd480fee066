/**
 * The answer to a request Node's HTTP parser refused (the server's `clientError` event): no route, no Fastify
 * request, only the socket. It is written as a complete HTTP/1.1 response in the error shape, then the connection
 * is closed, because a parser in error cannot find where the next request starts.
 */
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { badRequest, GatewayError } from '../../core/errors.ts';

/** What Node passes with a parser error (`rawPacket` is the chunk being parsed, `bytesParsed` the offset in it). */
export type ClientError = Error & { code?: string; rawPacket?: unknown; bytesParsed?: number };

/** Node's own field: the response the socket is writing now, if any. */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/** How long a closed connection keeps reading (and discarding) what the client still sends. */
const LINGER_MS = 5_000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** Sockets already answered: a parser in error reports the same error again for every later chunk. */
const answered = new WeakSet<Socket>();

export function answerClientError(error: ClientError, socket: Socket): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer = describeParserError(error);
  const inFlight = (socket as HttpSocket)._httpMessage;
  if (inFlight && !inFlight.req.complete) {
    // the refused bytes belong to the request being answered: its answer is this error, unless it has begun
    if (inFlight.headersSent) socket.destroy();
    else writeAndClose(socket, answer);
    return;
  }
  // the refused bytes are a later request on a keep-alive connection: earlier answers go out whole first
  whenIdle(socket as HttpSocket, () => writeAndClose(socket, answer));
}

function whenIdle(socket: HttpSocket, then: () => void): void {
  const inFlight = socket._httpMessage;
  if (!inFlight) {
    then();
    return;
  }
  // Node detaches a finished response before its `close`; a pipelined one may then be the socket's next
  inFlight.once('close', () => (inFlight.writableFinished ? whenIdle(socket, then) : socket.destroy()));
}

/** Writes a whole response in the error shape straight to the socket, then closes the connection. */
export function writeAndClose(socket: Socket, answer: GatewayError): void {
  if (socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(answer.toBody());
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
  // Destroying a socket with unread input sends a reset, which can discard the answer before the client reads it:
  // the socket keeps reading until the client closes, and is cut off if it never does.
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

function describeParserError(error: ClientError): GatewayError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError(431, 'invalid_request_error', `The request's headers exceed the ${maxHeaderSize / 1024} KB the gateway accepts.`, {
        code: 'headers_too_large',
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError(408, 'timeout_error', "The request's headers or body did not arrive in time.", { code: 'client_timeout' });
    case 'HPE_INVALID_HEADER_TOKEN': {
      const name = headerAt(error);
      const message = name
        ? `The ${name} header has a character that HTTP does not allow in a header value (a control byte or NUL).`
        : 'A request header is malformed: a character that HTTP does not allow, or a line that is not "name: value".';
      return badRequest(message, 'invalid_header', name ?? undefined);
    }
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return badRequest(
        'The request\'s Content-Length is invalid: it must be one decimal number, sent once, and not together with Transfer-Encoding.',
        'invalid_content_length',
        'content-length',
      );
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return badRequest(
        'The request\'s Transfer-Encoding is not accepted: it must end with "chunked" and not come together with Content-Length.',
        'invalid_transfer_encoding',
        'transfer-encoding',
      );
    case 'HPE_INVALID_CHUNK_SIZE':
      return badRequest("The request's chunked body is malformed: a chunk size is not a hexadecimal number.", 'invalid_chunked_encoding', 'body');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new GatewayError(413, 'invalid_request_error', "The request's chunk extensions are larger than the gateway accepts.", {
        code: 'chunk_extensions_too_large',
        param: 'body',
      });
    case 'HPE_INVALID_URL':
      return badRequest('The request path has a character that HTTP does not allow.', 'invalid_path', 'path');
    case 'HPE_INVALID_EOF_STATE':
      return badRequest('The connection ended before the request was complete.', 'incomplete_request');
    case 'HPE_PAUSED_H2_UPGRADE':
      return badRequest('HTTP/2 without TLS is not served here: send HTTP/1.1.', 'unsupported_protocol');
    default:
      return badRequest(
        'The request is not valid HTTP/1.1 (on a keep-alive connection, bytes after a body longer than its Content-Length are read as a new request).',
        'malformed_request',
      );
  }
}

/** The name of the header whose value the parser stopped in, when the refused chunk shows it. */
function headerAt(error: ClientError): string | null {
  const { rawPacket, bytesParsed } = error;
  if (!Buffer.isBuffer(rawPacket) || typeof bytesParsed !== 'number' || bytesParsed <= 0 || bytesParsed > rawPacket.length) return null;
  const lineStart = rawPacket.lastIndexOf('\n', bytesParsed - 1) + 1;
  const line = rawPacket.subarray(lineStart, bytesParsed).toString('latin1');
  const colon = line.indexOf(':');
  if (colon <= 0) return null;
  const name = line.slice(0, colon).toLowerCase();
  return TOKEN.test(name) ? name : null;
}
