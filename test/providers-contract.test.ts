/**
 * One offline contract suite run over every registered adapter (Hono-style): the same checks for each provider
 * and route it declares, then every fixture case of src/providers/<folder>/__fixtures__/ replayed through the
 * adapter the case names (request built and compared, answer or stream converted and compared, warnings compared).
 * Known gaps are declared as skips with a reason. No network: requests are only built, answers only parsed.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { GatewayError } from '../src/core/errors.ts';
import { UNCHANGED, type InferenceCall, type ProviderAdapter, type ProviderTarget, type RouteKind } from '../src/providers/contract.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';
import { systemClock } from '../src/providers/shared/clock.ts';
import { FIXTURE_CLOCK, fixtureCall, fixtureTarget, framedEvents, inferenceCall } from './helpers/provider-cases.ts';
import { FixtureFormatError, loadProviderFixtures, parseFixtureFile, type FixtureCase, type FixtureError } from './helpers/provider-fixtures.ts';

const registry = createProviderRegistry();

// the registry's adapters read the system clock for what the gateway writes itself (`created`, generated ids):
// fixture answers are written with FIXTURE_CLOCK
mock.method(systemClock, 'now', FIXTURE_CLOCK.now);
mock.method(systemClock, 'newId', FIXTURE_CLOCK.newId);

/** Cloud settings every cloud adapter needs to build a request (values are fakes). */
const CLOUD: Record<string, string> = {
  'azure-resource-name': 'contoso',
  'azure-deployment-id': 'gpt-4o-deployment',
  'azure-api-version': '2024-10-21',
  'vertex-project-id': 'demo-project',
  'vertex-region': 'us-central1',
  'aws-region': 'us-east-1',
  'aws-access-key-id': 'AKIDEXAMPLE',
  'aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

/** Known gaps, declared with a reason rather than hidden. */
const SKIPS: Record<string, Partial<Record<string, string>>> = {
  bedrock: { 'credential in headers': 'Bedrock signs with SigV4 in prepare(); the credential never travels as a header value' },
  'vertex-ai': { 'credential in headers': 'a bearer token or service account is turned into a header in prepare() (async token fetch)' },
};

const BODIES: Partial<Record<RouteKind, Record<string, unknown>>> = {
  chat: { model: 'test-model', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }], temperature: 0.5, max_tokens: 64 },
  completions: { model: 'test-model', prompt: 'Say hello', max_tokens: 16 },
  embeddings: { model: 'test-embedding', input: 'hello' },
  rerank: { model: 'test-rerank', query: 'q', documents: ['a', 'b'], top_n: 1 },
};

/** Providers that serve a route only for some model families get a model of such a family. */
const MODELS: Record<string, Partial<Record<RouteKind, string>>> = {
  bedrock: { embeddings: 'amazon.titan-embed-text-v2:0', rerank: 'amazon.rerank-v1:0' },
};

const SECRET = 'sk-contract-secret-0123456789';

function targetFor(adapter: ProviderAdapter): ProviderTarget {
  const baseUrl = adapter.defaultBaseUrl ?? (adapter.baseUrlFor ? adapter.baseUrlFor(CLOUD) : 'http://127.0.0.1:9/v1');
  return { provider: adapter.name, baseUrl, customHost: !adapter.defaultBaseUrl && !adapter.baseUrlFor, apiKey: SECRET, cloud: CLOUD };
}

function callFor(route: RouteKind, stream = false, provider = ''): InferenceCall {
  const model = MODELS[provider]?.[route];
  return inferenceCall(route, { ...BODIES[route], ...(model ? { model } : {}), ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
}

for (const adapter of registry.values()) {
  const skips = SKIPS[adapter.name] ?? {};
  describe(`adapter contract: ${adapter.name}`, () => {
    test('declares its capabilities as data', () => {
      assert.ok(adapter.capabilities.routes.has('passthrough'), 'every adapter serves pass-through');
      assert.ok(['sse', 'ndjson', 'aws-event-stream'].includes(adapter.capabilities.framing));
      assert.ok(adapter.defaultBaseUrl === undefined || /^https:\/\//.test(adapter.defaultBaseUrl), 'a default endpoint is https');
    });

    for (const route of ['chat', 'completions', 'embeddings', 'rerank'] as const) {
      if (!adapter.capabilities.routes.has(route)) continue;
      test(`${route}: builds a pure, well-formed upstream request that leaks nothing`, { skip: skips[route] }, () => {
        const target = targetFor(adapter);
        const call = callFor(route, false, adapter.name);
        const before = structuredClone(call.body);
        const first = adapter.buildRequest(call, target);
        const second = adapter.buildRequest(callFor(route, false, adapter.name), target);
        assert.deepEqual(call.body, before, 'the canonical body is not mutated');
        assert.deepEqual({ ...first, body: String(first.body) }, { ...second, body: String(second.body) }, 'pure: the same call builds the same request');
        assert.match(first.method, /^(POST|GET|PUT)$/);
        const url = new URL(first.url);
        assert.ok(['http:', 'https:'].includes(url.protocol));
        for (const name of Object.keys(first.headers)) {
          assert.ok(!name.toLowerCase().startsWith('x-gateway-'), `no gateway header reaches the provider (${name})`);
          assert.equal(name, name.toLowerCase(), `header names are lower-case (${name})`);
        }
        if (first.body !== undefined) {
          const parsed = JSON.parse(String(first.body)) as Record<string, unknown>;
          assert.ok(!('strict_reference_compliance' in parsed), 'the gateway flag never reaches the provider');
        }
        assert.ok(first.warnings.every((warning) => typeof warning === 'string' && !/[\r\n]/.test(warning)), 'warnings are header-safe strings');
      });

      test(`${route}: carries the provider credential in a header`, { skip: skips['credential in headers'] }, () => {
        const built = adapter.buildRequest(callFor(route, false, adapter.name), targetFor(adapter));
        assert.ok(Object.values(built.headers).some((value) => value.includes(SECRET)), 'the Authorization token is converted to the provider header');
      });
    }

    if (adapter.capabilities.streaming && adapter.capabilities.routes.has('chat')) {
      test('chat stream decoder: an empty or cut stream never crashes the process', () => {
        const decoder = adapter.streamDecoder?.(callFor('chat', true), targetFor(adapter));
        if (!decoder) return; // speaks OpenAI's stream format: relayed untouched
        try {
          const out = decoder.end();
          assert.ok(Array.isArray(out));
        } catch (error) {
          assert.ok(error instanceof GatewayError, 'a cut stream is reported as a gateway error, not a crash');
        }
        const fresh = adapter.streamDecoder?.(callFor('chat', true), targetFor(adapter));
        if (!fresh) return;
        try {
          fresh.push({ event: undefined, data: 'this is not json' });
        } catch (error) {
          assert.ok(error instanceof GatewayError || error instanceof Error);
        }
      });
    }

    test('error parser keeps a message from any body, garbage included', () => {
      if (!adapter.parseError) return; // the default parser is used
      for (const body of [{ error: { message: 'boom', type: 'x' } }, { message: 'boom' }, 'plain text boom', null, 42]) {
        const parsed = adapter.parseError(500, body);
        assert.ok(parsed === undefined || typeof parsed.message === 'string');
      }
    });
  });
}

// ---- fixture cases ----

const fixtures = loadProviderFixtures();

/** Adapters with no fixture case, each with the reason. */
const NO_FIXTURES: Record<string, string> = {};

/** Fixture cases known not to pass yet, by `<file>: <case name>`, each with the reason. */
const FIXTURE_SKIPS: Record<string, string> = {
  'bedrock/stream-errors.json: stream: tool input for a block never started':
    'bedrock/stream.ts throws a plain Error here, not the GatewayError the contract asks of a decoder (issue 18)',
};

/** What the client gets: the JSON text of the value, read back (undefined fields are not sent). */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function assertError(error: unknown, expected: FixtureError): void {
  assert.ok(error instanceof GatewayError, `a GatewayError is thrown, not ${String(error)}`);
  const actual: Record<string, unknown> = { status: error.status, ...error.toBody().error };
  for (const [field, value] of Object.entries(expected)) assert.equal(actual[field], value, `error.${field}`);
}

function checkRequest(adapter: ProviderAdapter, fixture: FixtureCase): void {
  const build = () => adapter.buildRequest(fixtureCall(fixture), fixtureTarget(fixture, adapter));
  if (fixture.error && !fixture.upstreamResponse) {
    let thrown: unknown;
    try {
      build();
    } catch (error) {
      thrown = error;
    }
    return assertError(thrown, fixture.error);
  }
  const expected = fixture.upstreamRequest;
  if (!expected) return;
  const built = build();
  assert.equal(`${built.method} ${built.url}`, `${expected.method} ${expected.url}`);
  for (const [name, value] of Object.entries(expected.headers ?? {})) assert.equal(built.headers[name], value ?? undefined, `header ${name}`);
  assert.deepEqual(built.body === undefined ? null : JSON.parse(String(built.body)), expected.body, 'the upstream body');
  assert.deepEqual(built.warnings, fixture.warnings ?? [], 'the warnings');
}

function checkAnswer(adapter: ProviderAdapter, fixture: FixtureCase): void {
  const upstream = fixture.upstreamResponse;
  if (!upstream || upstream.events) return;
  const status = upstream.status ?? 200;
  if (status >= 300) {
    if (fixture.response === 'unchanged') {
      // the core passes an OpenAI-shaped error on as written when the adapter has no error parser of its own
      assert.equal(adapter.parseError, undefined, 'an adapter with an error parser rewords the error');
      assert.equal(typeof (upstream.body as { error?: { message?: unknown } }).error?.message, 'string', 'an OpenAI-shaped error');
      return;
    }
    assert.ok(adapter.parseError, 'providerError needs the adapter\'s own error parser');
    assert.deepEqual(adapter.parseError(status, upstream.body) ?? null, fixture.providerError);
    return;
  }
  const transform = adapter.responseTransform(fixture.route);
  const converted = transform ? transform(upstream.body, fixtureCall(fixture), fixtureTarget(fixture, adapter)) : UNCHANGED;
  if (fixture.response === 'unchanged') assert.equal(converted, UNCHANGED, 'the answer goes back as the provider wrote it');
  else assert.deepEqual(wire(converted), fixture.response);
}

function checkStream(adapter: ProviderAdapter, fixture: FixtureCase): void {
  const events = fixture.upstreamResponse?.events;
  if (!events) return;
  const decoder = adapter.streamDecoder?.(fixtureCall(fixture), fixtureTarget(fixture, adapter));
  if (fixture.response === 'unchanged') return assert.equal(decoder, undefined, 'the stream is relayed untouched');
  assert.ok(decoder, 'the call gets a stream decoder');
  const chunks: unknown[] = [];
  let failure: unknown;
  try {
    for (const event of framedEvents(events, adapter.capabilities.framing)) chunks.push(...decoder.push(event));
    chunks.push(...decoder.end());
  } catch (error) {
    failure = error;
  }
  assert.deepEqual(wire(chunks), fixture.chunks, 'the chunks');
  if (fixture.error) assertError(failure, fixture.error);
  else assert.equal(failure, undefined, `the stream decodes without error: ${String(failure)}`);
}

describe('the fixture format: a malformed fixture fails loudly, naming the file, the case and the field', () => {
  const pair = { name: 'a', route: 'chat', request: {}, upstreamRequest: { method: 'POST', url: 'https://x', body: {} } };
  const refused = (cases: unknown[], pattern: RegExp) =>
    assert.throws(() => parseFixtureFile({ description: 'd', cases }, 'demo/x.json'), (error: unknown) => error instanceof FixtureFormatError && pattern.test(error.message));

  test('a well-formed pair is read', () => assert.equal(parseFixtureFile({ description: 'd', cases: [pair] }, 'demo/x.json').cases.length, 1));
  test('an unknown field (a typo)', () => refused([{ ...pair, respons: {} }], /^demo\/x\.json case "a": case has unknown field\(s\) respons/));
  test('a missing upstream body', () => refused([{ ...pair, upstreamRequest: { method: 'POST', url: 'https://x' } }], /case "a": upstreamRequest\.body is required/));
  test('an unknown route', () => refused([{ ...pair, route: 'chats' }], /case "a": route must be one of/));
  test('two cases of one name', () => refused([pair, pair], /^demo\/x\.json: two cases are named "a"/));
  test('chunks without events', () => refused([{ ...pair, chunks: [] }], /case "a": chunks need upstreamResponse\.events/));
  test('a case that checks nothing', () => refused([{ name: 'a', route: 'chat', request: {} }], /case "a": the case checks nothing/));
  test('a header name that is not lower-case', () => refused([{ ...pair, upstreamRequest: { ...pair.upstreamRequest, headers: { 'X-Api-Key': 'k' } } }], /case "a": upstreamRequest\.headers: X-Api-Key must be lower-case/));
});

test('every fixture case names a registered adapter', () => {
  const unknown = fixtures.filter((entry) => !registry.has(entry.provider)).map((entry) => `${entry.file} "${entry.fixture.name}": ${entry.provider}`);
  assert.deepEqual(unknown, []);
});

for (const adapter of registry.values()) {
  const cases = fixtures.filter((entry) => entry.provider === adapter.name);
  describe(`adapter fixtures: ${adapter.name} (${cases.length} cases)`, () => {
    if (cases.length === 0) {
      test('has fixture cases', { skip: NO_FIXTURES[adapter.name] }, () => assert.fail('no fixture case, and no reason declared in NO_FIXTURES'));
    }
    for (const { file, fixture } of cases) {
      const title = `${file}: ${fixture.name}`;
      test(title, { skip: FIXTURE_SKIPS[title] }, () => {
        checkRequest(adapter, fixture);
        checkAnswer(adapter, fixture);
        checkStream(adapter, fixture);
      });
    }
  });
}
