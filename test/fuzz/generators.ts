/**
 * Seeded generators of malformed input for the fuzz test: bodies, gateway headers, paths and queries. Every
 * generator returns a case that a correct gateway must refuse with a 4xx in the error shape; the `refused` flag
 * says when the refusal is certain (the fuzz test then also checks that nothing reached the upstream).
 */

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Raw bytes of a body and the content type it is sent with. */
export interface RawBody {
  bytes: Buffer;
  contentType: string;
  /** why it is malformed, for the failure message */
  label: string;
  /** a body every route must refuse (not JSON where JSON is due, a non-finite number) */
  certain: boolean;
}

/** Splices `literal` (raw JSON text) in place of one value of `json`, chosen at random among its fields. */
function spliceLiteral(random: Random, json: Record<string, unknown>, literal: string): string {
  const keys = Object.keys(json);
  if (keys.length === 0) return `{"x":${literal}}`;
  const key = pick(random, keys);
  const marker = '"__FUZZ_MARKER__"';
  return JSON.stringify({ ...json, [key]: '__FUZZ_MARKER__' }).replace(marker, literal);
}

const NON_FINITE = ['1e309', '-1e309', '1e99999', '123456789e400'];

/** A body that is malformed whatever the route: broken JSON, the wrong encoding, a non-finite number. */
export function malformedBody(random: Random, valid: Record<string, unknown>): RawBody {
  const text = JSON.stringify(valid);
  const choice = Math.floor(random() * 9);
  switch (choice) {
    case 0:
      return { bytes: Buffer.from(text.slice(0, Math.max(1, Math.floor(random() * text.length)))), contentType: 'application/json', label: 'truncated JSON', certain: true };
    case 1:
      return { bytes: Buffer.from(`${text}}`), contentType: 'application/json', label: 'trailing brace', certain: true };
    case 2:
      return { bytes: Buffer.from(spliceLiteral(random, valid, pick(random, NON_FINITE))), contentType: 'application/json', label: 'non-finite number', certain: true };
    case 3:
      return { bytes: Buffer.from(`{"a":{"b":[${spliceLiteral(random, valid, pick(random, NON_FINITE))}]}}`), contentType: 'application/json', label: 'deep non-finite number', certain: true };
    case 4:
      // invalid UTF-8 inside a string: a lone continuation byte and an overlong encoding
      return { bytes: Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0x80, 0xc0, 0xae]), Buffer.from('"}')]), contentType: 'application/json', label: 'invalid UTF-8', certain: false };
    case 5:
      return { bytes: Buffer.from('not json at all'), contentType: 'application/json', label: 'not JSON', certain: true };
    case 6:
      return { bytes: Buffer.from(''), contentType: 'application/json', label: 'empty JSON body', certain: true };
    case 7:
      return { bytes: Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`), contentType: 'application/json', label: 'deeply nested array', certain: false };
    default:
      return { bytes: Buffer.from(text.replace(/"(\w+)":/, '"$1\\u0000":')), contentType: 'application/json', label: 'NUL in a key', certain: false };
  }
}

/** A JSON body whose fields are replaced by values of the wrong type: refused by any schema that types them. */
export function mistypedBody(random: Random, valid: Record<string, unknown>): { body: Record<string, unknown>; label: string } {
  const keys = Object.keys(valid);
  const key = keys.length > 0 ? pick(random, keys) : 'name';
  const current = valid[key];
  const wrong: unknown[] = typeof current === 'string'
    ? [42, [], {}, true, 'a\u0000b']
    : typeof current === 'number'
      ? ['12', [], {}, -1.5e300]
      : Array.isArray(current)
        ? ['text', 7, { a: 1 }]
        : typeof current === 'boolean'
          ? ['true', 1, []]
          : [7, 'text', []];
  const value = pick(random, wrong);
  return { body: { ...valid, [key]: value }, label: `${key} = ${JSON.stringify(value)}` };
}

/** One header list (name, value pairs, duplicates allowed) that the gateway must refuse. */
export function malformedHeaders(random: Random): { headers: Array<[string, string]>; label: string } {
  const cases: Array<[Array<[string, string]>, string]> = [
    [[['x-gateway-metadata', '']], 'empty metadata'],
    [[['x-gateway-metadata', '[1,2]']], 'metadata not an object'],
    [[['x-gateway-metadata', '{"a":']], 'metadata not JSON'],
    [[['x-gateway-request-timeout', '']], 'empty timeout'],
    [[['x-gateway-request-timeout', 'soon']], 'timeout not a number'],
    [[['x-gateway-request-timeout', '-5']], 'negative timeout'],
    [[['x-gateway-cache-force-refresh', '']], 'empty force refresh'],
    [[['x-gateway-cache-force-refresh', 'yes']], 'force refresh not a boolean'],
    [[['x-gateway-config', '{"strategy":']], 'config not JSON'],
    [[['x-gateway-config', '{"strategy":{"mode":"sideways"},"targets":[]}']], 'config with an unknown mode'],
    [[['x-gateway-forward-headers', '["bad header"]']], 'forward headers not header names'],
    [[['x-gateway-custom-host', 'http://a.test/v1'], ['x-gateway-custom-host', 'http://b.test/v1']], 'custom host twice'],
    [[['x-gateway-provider', 'openai'], ['x-gateway-provider', 'anthropic']], 'provider twice'],
    [[['x-gateway-trace-id', 'a'], ['x-gateway-trace-id', 'b']], 'trace id twice'],
    [[['x-gateway-custom-host', 'http://169.254.169.254/latest']], 'custom host on a link-local address'],
    [[['x-gateway-custom-host', 'file:///etc/passwd']], 'custom host not http'],
    [[['x-gateway-provider', 'no-such-provider']], 'unknown provider'],
  ];
  const [headers, label] = pick(random, cases);
  return { headers, label };
}

/** Forwarded paths that would leave the provider's base path. */
export const TRAVERSAL_PATHS = [
  '/v1/files/../../../../etc/passwd',
  '/v1/files/%2e%2e/%2e%2e/etc/passwd',
  '/v1/files/%2E%2E%2Fsecret',
  '/v1/files/..%2f..%2fsecret',
  '/v1/files/..%5c..%5csecret',
  '/v1/files/%252e%252e/secret',
  '/v1/proxy/chat/../../../admin',
  '/v1/proxy/%2e%2e/%2e%2e/admin',
  '/v1/responses/..%2f..%2f..%2fetc%2fpasswd/input_items',
  '/v1/responses/%2e%2e',
  '/v1/files/a\\..\\..\\secret',
];

/** Query strings a single-valued parameter must refuse. */
export function malformedQuery(random: Random, names: readonly string[]): { query: string; label: string } {
  const name = names.length > 0 ? pick(random, names) : 'limit';
  const cases: Array<[string, string]> = [
    [`${name}[]=1`, `${name} as an array`],
    [`${name}=1&${name}=2`, `${name} twice`],
    [`${name}=%00`, `${name} with a NUL`],
    [`${name}=${'9'.repeat(400)}`, `${name} absurdly long`],
  ];
  const [query, label] = pick(random, cases);
  return { query, label };
}

/** Path parameter values that are not ids. */
export const BAD_IDS = ['..', '%2e%2e', 'a%00b', 'x'.repeat(600), '%ff%fe', 'null', '-1', '00000000-0000-0000-0000-00000000000g'];
