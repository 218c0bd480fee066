/**
 * The `data:` payloads of an SSE text (a relayed stream, for the request log) as the objects they hold.
 *
 * Parsing every event is what reassembling a relayed stream costs: ~0.7 µs an event of ~220 bytes with JSON.parse,
 * ~1 ms of the main thread for an answer of a thousand events (bench/log-row.ts). Most of a stream's events are one
 * content delta each, identical from event to event but for that text (and, in OpenAI's streams, a last field of
 * random padding, `obfuscation`). So the first event whose only choice's delta is `{"content": "..."}` is parsed and
 * kept as a template: the text before its content string, and the text after it (up to the last field's string when
 * the event ends in one). An event that is that text around one JSON string (and a last string) holds the same object
 * with that content (and that last value), so it is not parsed: its strings are read between the template's pieces
 * (decoded by JSON.parse only when they have an escape). The template is taken only when the content appears once in
 * its event's text and other texts put in those places are read back as the delta's content and the last field (one
 * more parse a stream); any other event (a different id or field, a tool call) is parsed whole, as before. Past the
 * first few events that fit, the template is one regular expression matched at each line's start (linePattern).
 */

import { StringDecoder } from 'node:string_decoder';
import type { DeltaShape } from '../providers/shared/delta-shape.ts';
import { isObject } from './reassemble-stream.ts';

type Json = Record<string, unknown>;

interface ContentTemplate {
  /** the event's text up to and including the content string's opening quote */
  prefix: string;
  /**
   * the event's text from the content string's closing quote: to its end, or, when its last field is a string that
   * may change from event to event (OpenAI's `obfuscation`), to that string's opening quote
   */
  middle: string;
  /** that last field's key (its string then runs to the event's closing `"}`) */
  trailing: string | undefined;
  event: Json;
  shape: DeltaShape;
  /** events that fitted it so far */
  fits: number;
  /** the template as one sticky expression over a whole line (linePattern), once it has fitted LINE_PATTERN_AFTER events */
  pattern: RegExp | undefined;
}

/**
 * A long run of events that fit the template is read with one regular expression a line (linePattern): a sticky
 * match from the line's start, instead of cutting the line out, trimming it and comparing its slices. Compiling the
 * expression costs more than the few events of a short answer save, so it is made once a stream has had this many.
 */
const LINE_PATTERN_AFTER = 16;

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** a JSON string's body: no unescaped quote and no control character (its escapes checked when it is decoded) */
const JSON_STRING_BODY = '((?:[^"\\\\\\u0000-\\u001f]|\\\\.)*)';

/**
 * A `data:` line that is the template's text around the content string (and the last field's string), with the
 * blank lines after it: the content in group 1 (the last field's value in group 2). Whitespace around the data as
 * `trim()` would take it off, for the usual spaces, tabs and CRs; a line with other whitespace does not match, and
 * is read as any other line.
 */
function linePattern(template: ContentTemplate): RegExp {
  const last = template.trailing === undefined ? '' : `${JSON_STRING_BODY}"\\}`;
  return new RegExp(`data:[ \\t]*${escapeForPattern(template.prefix)}${JSON_STRING_BODY}${escapeForPattern(template.middle)}${last}[ \\t\\r]*(?:\\n|$)(?:[ \\t\\r]*\\n)*`, 'y');
}

/** A JSON string body that linePattern matched, as the string it is; undefined when one of its escapes is not JSON's. */
function decodedBody(body: string): string | undefined {
  return body.includes('\\') ? stringOf(body) : body;
}

/** A chat completion chunk whose one choice's delta is `{"content": "..."}`. */
export const CHAT_DELTA: DeltaShape = {
  key: 'content',
  text(event) {
    if (!isObject(event) || !Array.isArray(event.choices) || event.choices.length !== 1) return undefined;
    const choice: unknown = event.choices[0];
    if (!isObject(choice) || !isObject(choice.delta)) return undefined;
    const content = choice.delta.content;
    return typeof content === 'string' && Object.keys(choice.delta).length === 1 ? content : undefined;
  },
  with(event, text) {
    return { ...event, choices: [{ ...(event.choices as Json[])[0], delta: { content: text } }] };
  },
};

/** Whether `text` parses to a delta of `shape` holding `content`, with `trailing` (if any) holding `value`. */
function readsBack(text: string, shape: DeltaShape, content: string, trailing: string | undefined, value: string): boolean {
  try {
    const probe: unknown = JSON.parse(text);
    if (shape.text(probe) !== content) return false;
    return trailing === undefined || (probe as Json)[trailing] === value;
  } catch {
    return false;
  }
}

/** The template an event makes, if it is a delta of `shape` whose text appears once in its data. */
function templateOf(data: string, event: unknown, shape: DeltaShape): ContentTemplate | undefined {
  const content = shape.text(event);
  if (content === undefined) return undefined;
  const key = JSON.stringify(shape.key);
  const field = `${key}:${JSON.stringify(content)}`;
  const at = data.indexOf(field);
  if (at < 0 || data.indexOf(field, at + 1) >= 0) return undefined;
  const prefix = data.slice(0, at + key.length + 2);
  let middle = data.slice(at + field.length - 1);
  // a last field holding a string, written as JSON.stringify writes it: its value may change from event to event
  const fields = event as Json;
  const last = Object.keys(fields).at(-1)!;
  const lastValue = fields[last];
  const lastField = typeof lastValue === 'string' ? `,${JSON.stringify(last)}:${JSON.stringify(lastValue)}}` : undefined;
  const trailing = lastField !== undefined && middle.endsWith(lastField) && last !== 'choices' ? last : undefined;
  if (trailing !== undefined) middle = middle.slice(0, middle.length - lastField!.length + lastField!.indexOf(':"') + 2);
  // the proof that the strings in those places are the delta's text (and the last field's value): other texts
  // put there are read back as them
  const probe = trailing === undefined ? `${prefix}x${middle}` : `${prefix}x${middle}y"}`;
  if (!readsBack(probe, shape, 'x', trailing, 'y')) return undefined;
  return { prefix, middle, trailing, event: fields, shape, fits: 0, pattern: undefined };
}

/** a JSON string body without escapes, quotes or control characters is its own value */
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

/** A JSON string's body as the string it is; undefined when it is not one string (an unescaped quote, say). */
function stringOf(body: string): string | undefined {
  if (PLAIN.test(body)) return body;
  try {
    const value: unknown = JSON.parse(`"${body}"`);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The delta's content of the event `data` holds if it fits the template (its last field's value, if the template has
 * one, in `reading.value`); undefined when it does not (it is then parsed whole).
 */
function fitTemplate(template: ContentTemplate, data: string, reading: Reading): string | undefined {
  const { prefix, middle, trailing } = template;
  // slices compared with ===, not startsWith/endsWith, which V8 runs a character at a time (slower than parsing)
  if (data.length < prefix.length + middle.length || data.slice(0, prefix.length) !== prefix) return undefined;
  let contentEnd: number;
  let value: string | undefined;
  if (trailing === undefined) {
    contentEnd = data.length - middle.length;
    if (data.slice(contentEnd) !== middle) return undefined;
  } else {
    // the last place the middle stands: a string cut elsewhere holds an unescaped quote, which stringOf refuses
    contentEnd = data.lastIndexOf(middle);
    if (contentEnd < prefix.length || !data.endsWith('"}')) return undefined;
    value = stringOf(data.slice(contentEnd + middle.length, data.length - 2));
    if (value === undefined) return undefined;
  }
  const content = stringOf(data.slice(prefix.length, contentEnd));
  if (content === undefined) return undefined;
  reading.value = value;
  template.fits += 1;
  return content;
}

/** The template's event with `content` as its delta's (and `value` as its last field's). */
function eventOf(template: ContentTemplate, content: string, value: string | undefined): Json {
  const event = template.shape.with(template.event, content);
  if (template.trailing !== undefined) event[template.trailing] = value;
  return event;
}

/** The objects read so far and the template found, across the pieces of one stream. */
interface Reading {
  out: unknown[];
  template: ContentTemplate | undefined;
  /** the last field's value of the event fitTemplate last read */
  value: string | undefined;
  /**
   * With `merged`, the contents of the events that fit the template since the last event that did not, in order:
   * they become one event when another event comes or the text ends (mergeRun).
   */
  run: string[] | undefined;
  /** with `completionChunks`: the reading stopped at an event that is not one (Messages, Responses) */
  notChunks: boolean;
  /** an event was parsed whole (the first one is what `completionChunks` judges a stream by) */
  parsedAny: boolean;
  /** the deltas a template is taken from */
  shape: DeltaShape;
}

function newReading(merged: boolean, shape: DeltaShape = CHAT_DELTA): Reading {
  return { out: [], template: undefined, value: undefined, run: merged ? [] : undefined, notChunks: false, parsedAny: false, shape };
}

/** The events of a run as one: the template's event holding their contents joined (and the last one's last field). */
function mergeRun(reading: Reading): void {
  const { run, template } = reading;
  if (run === undefined || run.length === 0 || template === undefined) return;
  reading.out.push(eventOf(template, run.length === 1 ? run[0]! : run.join(''), reading.value));
  reading.run = [];
}

/** The lines of `text` (whole lines only), their `data:` payloads read into `reading`. */
function readLines(text: string, reading: Reading, completionChunks = false): void {
  // line by line without splitting the text into an array of them (a stream of a thousand events has two thousand)
  for (let start = 0; start < text.length; ) {
    const template = reading.template;
    if (template !== undefined && template.fits >= LINE_PATTERN_AFTER) {
      const pattern = (template.pattern ??= linePattern(template));
      pattern.lastIndex = start;
      const match = pattern.exec(text);
      const content = match === null ? undefined : decodedBody(match[1]!);
      const value = match === null || template.trailing === undefined ? undefined : decodedBody(match[2]!);
      if (content !== undefined && (template.trailing === undefined || value !== undefined)) {
        reading.value = value;
        if (reading.run) reading.run.push(content);
        else reading.out.push(eventOf(template, content, value));
        start = pattern.lastIndex;
        continue;
      }
    }
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const isData = text.startsWith('data:', start);
    const line = isData ? text.slice(start + 5, end) : '';
    start = end + 1;
    if (!isData) continue;
    const data = line.trim();
    if (data === '' || data === '[DONE]') continue;
    if (!readData(data, reading, completionChunks)) return;
  }
}

/**
 * One event's data (trimmed, not empty) read into `reading`: from the template when it fits, else parsed (and made
 * the template when there is none yet and it can be one). False when `completionChunks` stops the reading.
 */
function readData(data: string, reading: Reading, completionChunks: boolean): boolean {
  const content = reading.template ? fitTemplate(reading.template, data, reading) : undefined;
  if (content !== undefined) {
    if (reading.run) reading.run.push(content);
    else reading.out.push(eventOf(reading.template!, content, reading.value));
    return true;
  }
  mergeRun(reading);
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    // a line cut by the body cap, or not JSON: skipped
    return true;
  }
  if (completionChunks && !reading.parsedAny && !(isObject(event) && Array.isArray(event.choices))) {
    reading.notChunks = true;
    return false;
  }
  reading.parsedAny = true;
  reading.out.push(event);
  reading.template ??= templateOf(data, event, reading.shape);
  return true;
}

const NONE: readonly unknown[] = Object.freeze([]);

/**
 * A run of merged events still open is closed when it has this many pieces and the events are taken: what a
 * reader holds stays bounded however long a run of deltas goes on (its text is then the taker's to bound).
 */
const RUN_PIECES = 256;

/**
 * The events read so far, handed over (no new array while there are none: a relayed stream asks at every event).
 * `closeRun`: an open run of merged events is closed and handed over too (else only when it is RUN_PIECES long).
 */
function takeOut(reading: Reading, closeRun = false): readonly unknown[] {
  if (reading.run !== undefined && reading.run.length > 0 && (closeRun || reading.run.length >= RUN_PIECES)) mergeRun(reading);
  return reading.out.length === 0 ? NONE : takeAll(reading);
}

function takeAll(reading: Reading): unknown[] {
  const out = reading.out;
  reading.out = [];
  return out;
}

/**
 * Events given one at a time (each event's data, as an SSE framer gives it), read as the lines above are, with the
 * deltas of `shape` as the template: a relayed stream's events for its log, without parsing each delta.
 */
export function eventReader(shape: DeltaShape, options: { merged?: boolean } = {}): { read(data: string): void; take(): readonly unknown[]; events(): unknown[] } {
  const reading = newReading(options.merged === true, shape);
  const take = () => takeOut(reading);
  return {
    read(data) {
      const trimmed = data.trim();
      if (trimmed !== '' && trimmed !== '[DONE]') readData(trimmed, reading, false);
    },
    /** the events read so far (a run of merged events still open stays for later), handed over */
    take,
    /** the rest, the last run closed */
    events() {
      mergeRun(reading);
      return takeAll(reading);
    },
  };
}

/** The `data:` payloads of an SSE text that are JSON (`[DONE]`, comments and lines that are not JSON skipped). */
export function sseObjects(text: string): unknown[] {
  const reading = newReading(false);
  readLines(text, reading);
  return reading.out;
}

/** Whether a body kept as the chunks it came in is an event stream (its first bytes are an SSE field or comment). */
export function looksLikeEventStream(buffers: readonly Buffer[]): boolean {
  const first = buffers[0];
  if (first === undefined) return false;
  const head = (first.length >= 8 || buffers.length === 1 ? first : Buffer.concat(buffers.slice(0, 8))).toString('latin1', 0, 8);
  return head.startsWith('data:') || head.startsWith('event:') || head.startsWith(':');
}

/**
 * A stream's bytes as received, decoded a chunk at a time (a character cut between two chunks is kept whole) as they
 * are read: a reading that stops early decodes no more.
 */
export function* decodedChunks(chunks: readonly Buffer[]): Generator<string> {
  const decoder = new StringDecoder('utf8');
  for (const chunk of chunks) yield decoder.write(chunk);
  yield decoder.end();
}

/**
 * The same, from a stream's text in pieces (decodedChunks): no string of the whole stream's length (one of a few
 * hundred KB is a large object of V8's, its pages faulted in anew each time: making it, with the copy of the bytes it
 * was decoded from, cost more than reading the events).
 *
 * `merged`: each run of consecutive events that fit the template comes out as one event, the template's, whose
 * delta's content is theirs joined (and whose last field is the run's last). Folding the events into an answer
 * (reassemble-stream.ts, which concatenates the deltas' contents) gives the same answer either way, without an
 * object per event: the request log's reassembly of a long answer.
 *
 * `completionChunks`: undefined, and nothing more read, when the first JSON event is not a chat or text completion
 * chunk (no `choices` list: a Messages or a Responses stream, whose every event would otherwise be parsed to be
 * thrown away).
 */
export function sseObjectsOfPieces(pieces: Iterable<string>, options: { merged?: boolean; completionChunks: true }): unknown[] | undefined;
export function sseObjectsOfPieces(pieces: Iterable<string>, options?: { merged?: boolean; completionChunks?: false }): unknown[];
export function sseObjectsOfPieces(pieces: Iterable<string>, options: { merged?: boolean; completionChunks?: boolean } = {}): unknown[] | undefined {
  const reader = new SsePieceReader(options);
  for (const text of pieces) if (!reader.push(text)) return undefined;
  return reader.end() ? reader.rest() : undefined;
}

/**
 * sseObjectsOfPieces a piece at a time, for a stream read in parts (the request log folds a long stream as it
 * passes): `take()` hands over the events read so far, and the reading goes on from where it was (a line cut between
 * two pieces, the template, a run of merged events still open). `push` and `end` return false once `completionChunks`
 * has stopped the reading.
 */
export class SsePieceReader {
  private readonly reading: Reading;
  private readonly chunksOnly: boolean;
  // the text since the last line end, in pieces joined once a line ends (a long line in many small pieces stays linear)
  private pending: string[] = [];

  constructor(options: { merged?: boolean; completionChunks?: boolean } = {}) {
    this.reading = newReading(options.merged === true);
    this.chunksOnly = options.completionChunks === true;
  }

  push(text: string): boolean {
    if (this.reading.notChunks) return false;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.pending.push(text);
      return true;
    }
    this.pending.push(text.slice(0, end));
    readLines(this.pending.join(''), this.reading, this.chunksOnly);
    this.pending = [text.slice(end + 1)];
    return !this.reading.notChunks;
  }

  /** reads what is left (a last line without its line end) and closes the last run */
  end(): boolean {
    if (this.reading.notChunks) return false;
    readLines(this.pending.join(''), this.reading, this.chunksOnly);
    this.pending = [];
    if (this.reading.notChunks) return false;
    mergeRun(this.reading);
    return true;
  }

  /** the events read so far, an open run of merged events closed and handed over with them */
  take(): readonly unknown[] {
    return takeOut(this.reading, true);
  }

  /** after `end()`: the events not taken yet */
  rest(): unknown[] {
    return takeAll(this.reading);
  }
}
