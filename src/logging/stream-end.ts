/**
 * A relayed stream's end: the text of its tail (usage.ts) and its last two chunks by reference. A Responses stream's
 * last event (response.completed, .incomplete, .failed) carries the whole Response, often longer than the tail; a
 * relayed `/v1/responses` stream also keeps the reads from the one where that event starts (FinalEventKeeper).
 */
import { responseAtStreamEnd } from './finish-reasons.ts';
import { STREAM_TAIL_BYTES } from './usage.ts';

export interface StreamTail {
  text: string;
  previous: Buffer | undefined;
  last: Buffer;
  /** a Responses stream's reads from the one where its last event starts (FinalEventKeeper) */
  final?: readonly Buffer[] | undefined;
}

/**
 * The Response in a Responses stream's last event: from the reads kept from where it starts, else from the tail, or
 * from the last two chunks when the tail cut its line.
 */
export function responseAtEnd(tail: StreamTail): Record<string, unknown> | undefined {
  const final = tail.final && tail.final.length > 0 ? responseAtStreamEnd(Buffer.concat(tail.final).toString('utf8')) : undefined;
  return final ?? responseAtStreamEnd(tail.text) ?? responseAtStreamEnd(lastChunksText(tail.previous, tail.last));
}

/** how the last event of a Responses stream names itself in its data (a JSON string keeps such text escaped) */
const FINAL_EVENTS = ['completed', 'incomplete', 'failed', 'cancelled'].map((name) => Buffer.from(`"type":"response.${name}"`));

/** The reads kept from the last event's start at most (a Response longer than that is read from the tail, if at all). */
export const FINAL_EVENT_KEEP_BYTES = 1024 * 1024;

/**
 * A relayed Responses stream's reads, by reference, from the one where its last event starts (and the read before
 * it, where that event's `data:` may begin): the whole Response, however long the stream before it. Each read is
 * searched for the event's name until it is found; a name cut between two reads is not found (the tail then serves).
 */
export class FinalEventKeeper {
  private previous: Buffer | undefined;
  private kept: Buffer[] | undefined;
  private size = 0;
  private over = false;

  push(buffer: Buffer): void {
    if (this.kept) {
      this.size += buffer.length;
      if (this.size <= FINAL_EVENT_KEEP_BYTES) this.kept.push(buffer);
      else if (!this.over) {
        // past the bound: nothing of it will be read, so nothing of it is held
        this.over = true;
        this.kept = [];
      }
      return;
    }
    if (FINAL_EVENTS.some((name) => buffer.includes(name))) {
      this.kept = this.previous ? [this.previous, buffer] : [buffer];
      this.size = (this.previous?.length ?? 0) + buffer.length;
      this.previous = undefined;
      return;
    }
    this.previous = buffer;
  }

  /** the reads kept, or undefined when the event was not found or was longer than the bound */
  reads(): readonly Buffer[] | undefined {
    return this.over ? undefined : this.kept;
  }
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

