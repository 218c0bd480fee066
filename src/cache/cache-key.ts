/**
 * The exact-match cache key: a SHA-256 over a canonical JSON of everything that changes the answer (provider,
 * route, model and every request param), within a namespace (the `x-gateway-cache-namespace` header). Nothing
 * else from the request counts: metadata and other headers never reach the key.
 */
import { createHash } from 'node:crypto';

/**
 * Body fields that change how the answer is delivered or attributed, not what it says. Dropping them lets a
 * streaming and a non-streaming request share one entry (the cache replays or assembles between the two).
 */
export const IGNORED_BODY_FIELDS: ReadonlySet<string> = new Set(['stream', 'stream_options', 'user']);

/** Bumped whenever the key material changes shape, so old entries are never read under a new meaning. */
const KEY_VERSION = 1;

export interface CacheKeyInput {
  /** the provider the request is sent to (the routing target, not the model's vendor) */
  provider: string;
  /** the public route, e.g. `chat/completions` */
  route: string;
  /** the parsed JSON request body */
  body: unknown;
  /** `x-gateway-cache-namespace`; absent and empty are the same namespace */
  namespace?: string | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON with object keys sorted at every depth; arrays keep their order (message and tool order matter).
 * Undefined members are dropped, as JSON.stringify does, so `{ a: undefined }` and `{}` agree.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (isRecord(value)) {
    const members: string[] = [];
    for (const name of Object.keys(value).sort()) {
      const member = value[name];
      if (member === undefined) continue;
      members.push(`${JSON.stringify(name)}:${canonicalJson(member)}`);
    }
    return `{${members.join(',')}}`;
  }
  // numbers, strings, booleans and null: JSON.stringify already has one spelling for each (1.0 and 1 are "1")
  return JSON.stringify(value) ?? 'null';
}

/** The body without the fields that do not change the answer (top level only: that is where they live). */
export function normaliseBody(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) if (!IGNORED_BODY_FIELDS.has(name)) kept[name] = value;
  return kept;
}

/** SHA-256 hex of the canonical key material. */
export function cacheKey(input: CacheKeyInput): string {
  const material = canonicalJson({
    v: KEY_VERSION,
    namespace: input.namespace ?? '',
    provider: input.provider,
    route: input.route,
    body: normaliseBody(input.body),
  });
  return createHash('sha256').update(material).digest('hex');
}
