/**
 * A relayed stream's end: the text of its tail (usage.ts) and its last two chunks by reference. A Responses stream's
 * last event (response.completed, .incomplete, .failed) carries the whole Response, often longer than the tail.
 */
import { responseAtStreamEnd } from './finish-reasons.ts';
import { STREAM_TAIL_BYTES } from './usage.ts';

export interface StreamTail {
  text: string;
  previous: Buffer | undefined;
  last: Buffer;
}

/** The Response in a Responses stream's last event: from the tail, or from the last two chunks when the tail cut its line. */
export function responseAtEnd(tail: StreamTail): Record<string, unknown> | undefined {
  return responseAtStreamEnd(tail.text) ?? responseAtStreamEnd(lastChunksText(tail.previous, tail.last));
}

/** what a Responses stream's last event names (`"type":"response.completed"`, .incomplete, ...) */
const RESPONSE_EVENT = Buffer.from('"response.');

/**
 * The last two chunks as text when they hold more than the tail kept and may hold a Responses stream's last event
 * ('' otherwise): a stream of another kind (a pass-through one) is not decoded and searched for it.
 */
function lastChunksText(previous: Buffer | undefined, last: Buffer): string {
  if ((previous?.length ?? 0) + last.length <= STREAM_TAIL_BYTES) return '';
  const named =
    last.includes(RESPONSE_EVENT) ||
    (previous !== undefined && (previous.includes(RESPONSE_EVENT) || Buffer.concat([previous.subarray(-RESPONSE_EVENT.length), last.subarray(0, RESPONSE_EVENT.length)]).includes(RESPONSE_EVENT)));
  if (!named) return '';
  return (previous ? Buffer.concat([previous, last]) : last).toString('utf8');
}

