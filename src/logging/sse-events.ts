/**
 * The `data:` payloads of an SSE text (a relayed stream, for the request log) as the objects they hold.
 *
 * Parsing every event is what reassembling a relayed stream costs: ~0.7 µs an event of ~220 bytes with JSON.parse,
 * ~1 ms of the main thread for an answer of a thousand events (bench/log-row.ts). Most of a stream's events are one
 * content delta each, identical from event to event but for that text. So the first event whose only choice's delta is
 * `{"content": "..."}` is parsed and kept as a template: the text before its content string and the text after it.
 * An event that is exactly that prefix, a JSON string body, and that suffix holds the same object with another
 * content, so it is not parsed: its content is the string between them (decoded by JSON.parse only when it has an
 * escape). The template is taken only when that key and value appear once in the event's text and another text in
 * their place is read back as the delta's content (one more parse a stream): the string between prefix and suffix is
 * then that content, whatever it holds, as long as it is one JSON string (else the event is parsed whole). Any other
 * event (a different id or field, a tool call, a field that changes from event to event) is parsed whole, as before.
 */

import { StringDecoder } from 'node:string_decoder';

type Json = Record<string, unknown>;

interface ContentTemplate {
  /** the event's text up to and including the content string's opening quote */
  prefix: string;
  /** the event's text from the content string's closing quote */
  suffix: string;
  event: Json;
  choice: Json;
}

function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The template an event makes, if it is a plain content delta whose content appears once in its text. */
function templateOf(data: string, event: unknown): ContentTemplate | undefined {
  if (!isJsonObject(event) || !Array.isArray(event.choices) || event.choices.length !== 1) return undefined;
  const choice: unknown = event.choices[0];
  if (!isJsonObject(choice) || !isJsonObject(choice.delta)) return undefined;
  const keys = Object.keys(choice.delta);
  const content = choice.delta.content;
  if (keys.length !== 1 || typeof content !== 'string') return undefined;
  const field = `"content":${JSON.stringify(content)}`;
  const at = data.indexOf(field);
  if (at < 0 || data.indexOf(field, at + 1) >= 0) return undefined;
  const opening = at + '"content":"'.length;
  const prefix = data.slice(0, opening);
  const suffix = data.slice(at + field.length - 1);
  // the proof that the string between them is the delta's content: another text there is read back as it
  try {
    const probe: unknown = JSON.parse(`${prefix}x${suffix}`);
    const probeChoice: unknown = isJsonObject(probe) && Array.isArray(probe.choices) ? probe.choices[0] : undefined;
    if (!isJsonObject(probeChoice) || !isJsonObject(probeChoice.delta) || probeChoice.delta.content !== 'x') return undefined;
  } catch {
    return undefined;
  }
  return { prefix, suffix, event, choice };
}

/** a JSON string body without escapes, quotes or control characters is its own value */
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

/** The content of an event that fits the template; undefined when it does not (it is then parsed whole). */
function contentIn(template: ContentTemplate, data: string): string | undefined {
  const { prefix, suffix } = template;
  // slices compared with ===, not startsWith/endsWith, which V8 runs a character at a time (slower than parsing)
  if (data.length < prefix.length + suffix.length || data.slice(0, prefix.length) !== prefix || data.slice(data.length - suffix.length) !== suffix) return undefined;
  const body = data.slice(prefix.length, data.length - suffix.length);
  if (PLAIN.test(body)) return body;
  try {
    const value: unknown = JSON.parse(`"${body}"`);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // not one string (an unescaped quote): parsed whole
  }
}

/** The template's event with another content (new objects down to the delta; the other values shared). */
function withContent(template: ContentTemplate, content: string): Json {
  return { ...template.event, choices: [{ ...template.choice, delta: { content } }] };
}

/** The objects read so far and the template found, across the pieces of one stream. */
interface Reading {
  out: unknown[];
  template: ContentTemplate | undefined;
}

/** The lines of `text` (whole lines only), their `data:` payloads read into `reading`. */
function readLines(text: string, reading: Reading): void {
  // line by line without splitting the text into an array of them (a stream of a thousand events has two thousand)
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const isData = text.startsWith('data:', start);
    const line = isData ? text.slice(start + 5, end) : '';
    start = end + 1;
    if (!isData) continue;
    const data = line.trim();
    if (data === '' || data === '[DONE]') continue;
    const template = reading.template;
    const content = template ? contentIn(template, data) : undefined;
    if (content !== undefined) {
      reading.out.push(withContent(template!, content));
      continue;
    }
    try {
      const event: unknown = JSON.parse(data);
      reading.out.push(event);
      reading.template ??= templateOf(data, event);
    } catch {
      // a line cut by the body cap, or not JSON: skipped
    }
  }
}

/** The `data:` payloads of an SSE text that are JSON (`[DONE]`, comments and lines that are not JSON skipped). */
export function sseObjects(text: string): unknown[] {
  const reading: Reading = { out: [], template: undefined };
  readLines(text, reading);
  return reading.out;
}

/**
 * The same, from a stream's bytes as received, a chunk at a time: no copy of the whole stream, and no string of its
 * whole length (one of a few hundred KB is a large object of V8's, its pages faulted in anew each time: the copy and
 * the decoding of such a stream cost more than reading its events).
 */
export function sseObjectsOfChunks(chunks: readonly Buffer[]): unknown[] {
  const reading: Reading = { out: [], template: undefined };
  const decoder = new StringDecoder('utf8');
  // the text since the last line end, in pieces joined once a line ends (a long line in many small chunks stays linear)
  let pending: string[] = [];
  for (const chunk of chunks) {
    const text = decoder.write(chunk);
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      pending.push(text);
      continue;
    }
    pending.push(text.slice(0, end));
    readLines(pending.join(''), reading);
    pending = [text.slice(end + 1)];
  }
  pending.push(decoder.end());
  readLines(pending.join(''), reading);
  return reading.out;
}
