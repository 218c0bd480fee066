/**
 * Frames both ways between the client's socket and the provider's, as they come: text stays text, binary stays
 * binary, nothing is buffered beyond what each socket's own send buffer holds. Backpressure: when the receiving
 * side's send buffer passes HIGH_WATER, the sending side's reader is paused until a write brings it back under
 * LOW_WATER. A close on one side closes the other with the same code and reason (codes that cannot be sent, 1005
 * and 1006, become a plain close or 1011). The provider's `response.done` events are read for their usage.
 */
import type { RawData, WebSocket } from 'ws';
import { usageOf, type TokenUsage } from '../../logging/usage.ts';

const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

export interface RelayEnd {
  /** who closed first */
  closedBy: 'client' | 'provider';
  code: number;
  reason: string;
}

export interface RelayEvents {
  /** each provider `response.done` event's `response.usage` */
  onUsage(usage: TokenUsage): void;
  /** the first frame from the provider */
  onFirstFrame(): void;
  /** both sockets are closed: called once */
  onEnd(end: RelayEnd): void;
}

/** A close code the other side may be sent as it is (RFC 6455 7.4, as ws checks it). */
function sendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

function closeLike(socket: WebSocket, code: number, reason: Buffer): void {
  if (socket.readyState === socket.CLOSED || socket.readyState === socket.CLOSING) return;
  if (code === 1005) socket.close();
  else if (sendableCode(code)) socket.close(code, reason.subarray(0, 123));
  else socket.close(1011, 'the other side of the session went away');
}

/** `response.done`'s usage, read only from frames that name that event. Realtime says input_token_details. */
export function usageOfEvent(frame: Buffer): TokenUsage | undefined {
  if (!frame.includes('"response.done"')) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof event !== 'object' || event === null || (event as { type?: unknown }).type !== 'response.done') return undefined;
  const usage = (event as { response?: { usage?: unknown } }).response?.usage;
  if (typeof usage !== 'object' || usage === null) return undefined;
  const fields = usage as Record<string, unknown>;
  return usageOf({ ...fields, input_tokens_details: fields.input_token_details, output_tokens_details: fields.output_token_details });
}

/** Adds one event's counts to the session's; a count no event reported stays undefined. */
export function addUsage(sum: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  if (!sum) return { ...usage };
  const add = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : a + b);
  const total: TokenUsage = { prompt: add(sum.prompt, usage.prompt), completion: add(sum.completion, usage.completion), total: add(sum.total, usage.total) };
  const cached = add(sum.cached, usage.cached);
  const cacheWrite = add(sum.cacheWrite, usage.cacheWrite);
  const reasoning = add(sum.reasoning, usage.reasoning);
  if (cached !== undefined) total.cached = cached;
  if (cacheWrite !== undefined) total.cacheWrite = cacheWrite;
  if (reasoning !== undefined) total.reasoning = reasoning;
  return total;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/** One direction: frames from `from` sent on `to`, `from` paused while `to` is backed up. */
function pipe(from: WebSocket, to: WebSocket, onFrame?: (frame: Buffer, isBinary: boolean) => void): void {
  let paused = false;
  const drained = () => {
    if (paused && to.bufferedAmount < LOW_WATER) {
      paused = false;
      from.resume();
    }
  };
  from.on('message', (data, isBinary) => {
    if (to.readyState !== to.OPEN) return;
    const frame = toBuffer(data);
    onFrame?.(frame, isBinary);
    to.send(frame, { binary: isBinary }, drained);
    if (!paused && to.bufferedAmount > HIGH_WATER) {
      paused = true;
      from.pause();
    }
  });
}

export function relay(client: WebSocket, provider: WebSocket, events: RelayEvents): void {
  let first = true;
  pipe(client, provider);
  pipe(provider, client, (frame, isBinary) => {
    if (first) {
      first = false;
      events.onFirstFrame();
    }
    if (isBinary) return;
    const usage = usageOfEvent(frame);
    if (usage) events.onUsage(usage);
  });
  let end: RelayEnd | undefined;
  let open = 2;
  const closed = (side: RelayEnd['closedBy'], other: WebSocket) => (code: number, reason: Buffer) => {
    end ??= { closedBy: side, code, reason: reason.toString('utf8') };
    closeLike(other, code, reason);
    open -= 1;
    if (open === 0) events.onEnd(end);
  };
  client.once('close', closed('client', provider));
  provider.once('close', closed('provider', client));
  // an error is followed by close: the close handlers end the session
  client.on('error', () => client.terminate());
  provider.on('error', () => provider.terminate());
}
