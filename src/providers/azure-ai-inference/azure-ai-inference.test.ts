import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import { UNCHANGED, type InferenceCall, type ProviderTarget, type RouteKind } from '../contract.ts';
import { azureAiInferenceAdapter as adapter } from './index.ts';
import { stripVendorPrefix } from './rerank.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

function call(route: RouteKind, extra: Partial<InferenceCall> = {}, body: unknown = { model: 'mistral-large-2407', messages: [{ role: 'user', content: 'hi' }] }): InferenceCall {
  const rawBody = Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

function target(cloud: Record<string, string>, baseUrl = 'https://contoso.services.ai.azure.com/models'): ProviderTarget {
  return { provider: 'azure-ai-inference', baseUrl, customHost: false, apiKey: 'foundry-key', cloud };
}

function assertNames(error: unknown, param: string): true {
  assert.ok(error instanceof GatewayError);
  assert.equal(error.status, 400);
  assert.equal(error.param, param);
  return true;
}

describe('azure-ai-inference: URL building and headers (fixture pairs)', () => {
  const { cases, baseUrlFor } = fixture('urls.json');
  const rerank = fixture('rerank.json');
  for (const entry of cases) {
    test(entry.name, () => {
      const body = entry.call.route === 'rerank' ? rerank.request : undefined;
      const input = call(entry.call.route, { path: entry.call.path ?? '' }, body);
      const build = () => adapter.buildRequest(input, target(entry.cloud, entry.baseUrl));
      if (entry.error) return assert.throws(build, (error) => assertNames(error, entry.error));
      const built = build();
      assert.equal(`${built.method} ${built.url}`, entry.expected);
      if (entry.headers) assert.deepEqual(built.headers, entry.headers);
    });
  }
  for (const entry of baseUrlFor) {
    test(`baseUrlFor ${JSON.stringify(entry.cloud)}`, () => {
      if (entry.error) return assert.throws(() => adapter.baseUrlFor!(entry.cloud), (error) => assertNames(error, entry.error));
      assert.equal(adapter.baseUrlFor!(entry.cloud), entry.expected);
    });
  }

  test('chat bodies pass untouched', () => {
    const input = call('chat');
    assert.equal(adapter.buildRequest(input, target({})).body, input.rawBody);
  });
});

describe('azure-ai-inference: rerank (fixture pair)', () => {
  const { request, expectedUpstreamBody, providerResponse, expected, prefixes } = fixture('rerank.json');

  test('request: vendor prefix stripped, documents as text, return_documents answered by the gateway', () => {
    const built = adapter.buildRequest(call('rerank', {}, request), target({}));
    assert.deepEqual(JSON.parse(String(built.body)), expectedUpstreamBody);
    assert.deepEqual(built.warnings, []);
  });

  test('answer: sorted by relevance, original indexes, documents, search units, provider', () => {
    assert.deepEqual(adapter.responseTransform('rerank')!(providerResponse, call('rerank', {}, request), target({})), expected);
  });

  test('documents are left out unless asked for; a garbage answer throws', () => {
    const plain = { ...request, return_documents: false };
    const out = adapter.responseTransform('rerank')!(providerResponse, call('rerank', {}, plain), target({})) as { results: object[] };
    assert.ok(out.results.every((result) => !('document' in result)));
    assert.throws(() => adapter.responseTransform('rerank')!({ ranking: [] }, call('rerank', {}, request), target({})));
  });

  for (const [model, upstream] of prefixes) {
    test(`model ${model} -> ${upstream}`, () => assert.equal(stripVendorPrefix(model), upstream));
  }
});

describe('azure-ai-inference: answers', () => {
  test('an OpenAI-shaped answer (a Mistral deployment with tool calls) passes untouched', () => {
    const { providerResponse } = fixture('chat-response.json');
    assert.equal(adapter.responseTransform('chat')!(providerResponse, call('chat'), target({})), UNCHANGED);
  });

  test('streams get the Azure smoothing', () => {
    const decoder = adapter.streamDecoder!(call('chat', {}, { model: 'm', messages: [], stream: true }), target({}))!;
    assert.deepEqual(decoder.push({ event: undefined, data: '{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[]}' }), []);
  });
});

test('capabilities: chat, embeddings, rerank and pass-through; no text completions', () => {
  assert.deepEqual([...adapter.capabilities.routes].sort(), ['chat', 'embeddings', 'passthrough', 'rerank']);
  assert.equal(adapter.defaultBaseUrl, undefined);
});
