/**
 * One offline contract suite run over every registered adapter (Hono-style): the same checks for each provider
 * and route it declares, with known gaps declared as skips with a reason. No network: requests are only built,
 * answers only parsed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../src/core/errors.ts';
import type { InferenceCall, ProviderAdapter, ProviderTarget, RouteKind } from '../src/providers/contract.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';

const registry = createProviderRegistry();

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
  const body = { ...BODIES[route], ...(model ? { model } : {}), ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
  const rawBody = Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {} };
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
