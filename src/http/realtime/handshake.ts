/**
 * The client's side of the Realtime handshake, before anything is upgraded: which gateway key it sent (the
 * `x-gateway-api-key` header, or the subprotocol form browser clients use, `openai-insecure-api-key.<key>`, since a
 * browser cannot set headers on a WebSocket), which subprotocol to answer with, and refusals written on the raw
 * socket in the error shape (the handshake is plain HTTP until the 101).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { invalidParam, type GatewayError } from '../../core/errors.ts';

const KEY_PROTOCOL = 'openai-insecure-api-key.';
const GATEWAY_KEY_HEADER = 'x-gateway-api-key';

function offeredProtocols(headers: IncomingHttpHeaders): string[] {
  const value = headers['sec-websocket-protocol'];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value.join(',') : value).split(',').map((part) => part.trim()).filter((part) => part.length > 0);
}

/** The gateway key: the header first, else the subprotocol that carries one. */
export function gatewayKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[GATEWAY_KEY_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.trim().length > 0) return value.trim();
  const carried = offeredProtocols(headers).find((protocol) => protocol.startsWith(KEY_PROTOCOL));
  const key = carried?.slice(KEY_PROTOCOL.length);
  return key !== undefined && key.length > 0 ? key : undefined;
}

/**
 * The subprotocol the 101 names: `realtime` when offered, else the first that carries no key. A client that offered
 * only the key's gets that one back (it must get one of its own, or it fails the handshake).
 */
export function chooseProtocol(offered: ReadonlySet<string>): string | false {
  if (offered.size === 0) return false;
  if (offered.has('realtime')) return 'realtime';
  const list = [...offered];
  return list.find((protocol) => !protocol.startsWith(KEY_PROTOCOL)) ?? list[0]!;
}

/** The request's headers with the gateway key taken out of the subprotocol list: what the request log may keep. */
export function headersForLog(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const protocols = offeredProtocols(headers);
  if (!protocols.some((protocol) => protocol.startsWith(KEY_PROTOCOL))) return headers;
  const masked = protocols.map((protocol) => (protocol.startsWith(KEY_PROTOCOL) ? `${KEY_PROTOCOL}***` : protocol));
  return { ...headers, 'sec-websocket-protocol': masked.join(', ') };
}

/** The query's `model`, required: the provider's socket is opened for one model. */
export function modelOf(query: URLSearchParams): string {
  const model = query.get('model');
  if (model === null || model.trim().length === 0) throw invalidParam('model', 'The query parameter model is required: GET /v1/realtime?model=<model>.', 'missing_model');
  if (query.getAll('model').length > 1) throw invalidParam('model', 'The query parameter model must be sent once.', 'repeated_parameter');
  return model;
}

/** Answers the handshake with an HTTP error in the error shape and closes the socket: no upgrade. */
export function refuseHandshake(socket: Duplex, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
  socket.once('finish', () => socket.destroy());
}

export function refuseWithError(socket: Duplex, error: GatewayError, headers?: Readonly<Record<string, string>>): void {
  refuseHandshake(socket, error.status, error.toBody(), headers);
}
