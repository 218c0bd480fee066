/**
 * Dot segments must never reach an upstream URL. The upstream client parses the built URL with the WHATWG parser,
 * which resolves `..` and `.` segments (also `%2e%2e`, `.%2e`, and `\` for `/`), so a client value that carries one
 * (a pass-through path, a response id, a model or header the adapter puts into the path) would climb out of the
 * provider's base path (`/v1/files/../../etc/passwd` -> `/etc/passwd`). An upstream that decodes once more before
 * routing would do the same with `..%2f..` or `%252e%252e`, so every decoding of the value is checked.
 *
 * An encoded slash on its own is allowed where the path is built by an adapter: Bedrock model ARNs
 * (`inference-profile/...`) are encoded into one segment; with every decoding free of dot segments it cannot climb.
 */
import type { InferenceCall } from '../providers/contract.ts';
import { invalidParam } from '../core/errors.ts';

/** How many rounds of percent-decoding are checked: `%25252e` is three levels deep; nothing real goes further. */
const DECODING_ROUNDS = 4;
const PERCENT_TRIPLET = /%([0-9A-Fa-f]{2})/g;
/** Nothing to look at: no `%`, no backslash, no segment starting with a dot. */
const PLAIN = /^[^%\\]*$/;
const DOT_START = /(?:^|[/\\])\.\.?(?:[/\\]|$)/;
/** the whole URL, query included: nothing that could make a dot segment (the usual built URL) */
const SUSPECT_URL = /[%\\]|\/\.\.?(?:[/?#]|$)/;
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
const DOUBLE_ENCODED = /%25(?:25)*(?:2e|2f|5c)/i;

export type PathProblem = 'dot segment' | 'backslash' | 'encoded separator' | 'double encoding';

/** Decodes each %XX triplet as one byte (malformed ones stay as they are): enough to see ASCII `.`, `/` and `\`. */
function decodeOnce(text: string): string {
  return text.replace(PERCENT_TRIPLET, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** true when `path`, as written or after any number of percent-decodings, has a `.` or `..` segment (`/` or `\`). */
export function hasDotSegment(path: string): boolean {
  let current = path;
  for (let round = 0; round <= DECODING_ROUNDS; round++) {
    if (DOT_START.test(current)) return true;
    if (!current.includes('%')) return false;
    const decoded = decodeOnce(current);
    if (decoded === current) return false;
    current = decoded;
  }
  return true;
}

/**
 * The strict rule for a path the client wrote (the pass-through path): no dot segment in any encoding, no
 * backslash (raw or encoded), no encoded slash hiding a dot segment, no double encoding of `.`, `/` or `\`.
 * An encoded slash inside a name (`/models/meta-llama%2FLlama-3`, as the official openai client sends a model id
 * with a slash) is kept: it hides no dot segment in any decoding.
 */
export function clientPathProblem(path: string): PathProblem | undefined {
  if (PLAIN.test(path) && !DOT_START.test(path)) return undefined;
  if (path.includes('\\') || /%5c/i.test(path)) return 'backslash';
  if (DOUBLE_ENCODED.test(path)) return 'double encoding';
  if (hasDotSegment(path)) return ENCODED_SEPARATOR.test(path) ? 'encoded separator' : 'dot segment';
  return undefined;
}

/** A single segment (an id the route decoded): no separator at all, and not a dot segment in any encoding. */
export function segmentProblem(value: string): PathProblem | undefined {
  if (value.includes('/')) return 'encoded separator';
  return clientPathProblem(`/${value}`);
}

/**
 * The path of a built upstream URL (scheme and authority skipped, query dropped) when it has a dot segment in any
 * encoding; undefined otherwise. Cheap on the common URL: one regex test.
 */
export function upstreamPathWithDotSegment(url: string): string | undefined {
  if (!SUSPECT_URL.test(url)) return undefined;
  const authority = url.indexOf('//');
  const pathStart = url.indexOf('/', authority >= 0 ? authority + 2 : 0);
  if (pathStart < 0) return undefined;
  const queryStart = url.indexOf('?', pathStart);
  const path = queryStart >= 0 ? url.slice(pathStart, queryStart) : url.slice(pathStart);
  if (PLAIN.test(path) && !DOT_START.test(path)) return undefined;
  return hasDotSegment(path) ? path : undefined;
}

export function describeProblem(problem: PathProblem): string {
  switch (problem) {
    case 'dot segment':
      return 'a "." or ".." segment (in any encoding)';
    case 'backslash':
      return 'a backslash (raw or %5C)';
    case 'encoded separator':
      return 'an encoded "/" that hides a "." or ".." segment';
    case 'double encoding':
      return 'a double-encoded ".", "/" or "\\" (%252E, %252F, %255C)';
  }
}

/**
 * The one rule behind every route-level check: whatever client value went into the built URL (a pass-through path,
 * a response id, a model, a cloud header), the URL the upstream client will parse has no dot segment in any
 * encoding, so the WHATWG parser cannot move it out of the path the adapter chose. The param names the likely
 * source: the path on the pass-through, the id on the responses routes, the model when it carries the segment.
 */
export function refuseDotSegments(url: string, call: InferenceCall): void {
  const path = upstreamPathWithDotSegment(url);
  if (path === undefined) return;
  const model = typeof call.body === 'object' && call.body !== null ? (call.body as { model?: unknown }).model : undefined;
  const param =
    call.route === 'passthrough'
      ? 'path'
      : call.params.response_id !== undefined
        ? 'response_id'
        : typeof model === 'string' && hasDotSegment(`/${model}`)
          ? 'model'
          : 'path';
  throw invalidParam(param, `The upstream path would contain a "." or ".." segment (in some encoding) taken from the request's ${param === 'path' ? 'path or headers' : param}.`, 'invalid_path');
}
