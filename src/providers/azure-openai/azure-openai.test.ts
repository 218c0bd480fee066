import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import { UNCHANGED, type InferenceCall, type ProviderTarget, type RouteKind } from '../contract.ts';
import { azureOpenAiAdapter as adapter } from './index.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

function call(route: RouteKind, extra: Partial<InferenceCall> = {}, body: unknown = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }): InferenceCall {
  const rawBody = Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: true, rawBody, contentType: 'application/json', params: {}, ...extra };
}

function target(cloud: Record<string, string>, baseUrl = 'https://contoso.openai.azure.com/openai', apiKey: string | undefined = 'azure-key'): ProviderTarget {
  return { provider: 'azure-openai', baseUrl, customHost: false, apiKey, cloud };
}

function assertNames(error: unknown, param: string): true {
  assert.ok(error instanceof GatewayError);
  assert.equal(error.status, 400);
  assert.equal(error.param, param);
  return true;
}

describe('azure-openai: URL building (fixture pairs)', () => {
  const { cases, baseUrlFor } = fixture('urls.json');
  for (const entry of cases) {
    test(entry.name, () => {
      const input = call(entry.call.route, { method: entry.call.method ?? 'POST', path: entry.call.path ?? '', query: entry.call.query ?? '' });
      const build = () => adapter.buildRequest(input, target(entry.cloud, entry.baseUrl));
      if (entry.error) return assert.throws(build, (error) => assertNames(error, entry.error));
      const built = build();
      assert.equal(`${built.method} ${built.url}`, entry.expected);
    });
  }
  for (const entry of baseUrlFor) {
    test(`baseUrlFor ${JSON.stringify(entry.cloud)}`, () => {
      if (entry.error) return assert.throws(() => adapter.baseUrlFor!(entry.cloud), (error) => assertNames(error, entry.error));
      assert.equal(adapter.baseUrlFor!(entry.cloud), entry.expected);
    });
  }
});

describe('azure-openai: auth conversion (fixture pairs)', () => {
  for (const entry of fixture('auth.json').cases) {
    test(entry.name, () => {
      const withToken = { ...target({ 'azure-deployment-id': 'd', ...entry.cloud }), apiKey: entry.apiKey };
      const build = () => adapter.buildRequest(call('chat'), withToken);
      if (entry.error) return assert.throws(build, (error) => assertNames(error, entry.error));
      const { 'content-type': _type, ...credentials } = build().headers;
      assert.deepEqual(credentials, entry.expected);
    });
  }
});

describe('azure-openai: request bodies', () => {
  test('the client bytes pass untouched on the deployment path', () => {
    const input = call('chat');
    const built = adapter.buildRequest(input, target({ 'azure-deployment-id': 'd' }));
    assert.equal(built.body, input.rawBody);
    assert.deepEqual(built.warnings, []);
  });

  test('v1 API: the deployment header names the model; untouched when it already does', () => {
    const rewritten = adapter.buildRequest(call('chat'), target({ 'azure-api-version': 'v1', 'azure-deployment-id': 'gpt4o-prod' }));
    assert.deepEqual(JSON.parse(String(rewritten.body)), { model: 'gpt4o-prod', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(rewritten.headers['content-type'], 'application/json');
    const same = call('chat', {}, { model: 'gpt4o-prod', messages: [] });
    assert.equal(adapter.buildRequest(same, target({ 'azure-api-version': 'v1', 'azure-deployment-id': 'gpt4o-prod' })).body, same.rawBody);
    const noHeader = call('chat');
    assert.equal(adapter.buildRequest(noHeader, target({ 'azure-api-version': 'v1' })).body, noHeader.rawBody);
  });
});

describe('azure-openai: answers (fixture pairs)', () => {
  for (const entry of fixture('chat-response.json').cases) {
    test(entry.name, () => {
      const transform = adapter.responseTransform('chat')!;
      const out = transform(entry.providerResponse, call('chat'), target(entry.cloud));
      if (entry.expected === 'unchanged') assert.equal(out, UNCHANGED);
      else assert.deepEqual(out, entry.expected);
    });
  }

  test('an answer without choices is refused (the core answers 502)', () => {
    assert.throws(() => adapter.responseTransform('chat')!({ nope: 1 }, call('chat'), target({})), /no choices array/);
    assert.throws(() => adapter.responseTransform('embeddings')!([], call('embeddings'), target({})), /no data array/);
  });

  test('embeddings with a model pass untouched', () => {
    const answer = { object: 'list', model: 'text-embedding-3-small', data: [{ object: 'embedding', index: 0, embedding: [0.1] }], usage: { prompt_tokens: 1, total_tokens: 1 } };
    assert.equal(adapter.responseTransform('embeddings')!(answer, call('embeddings'), target({ 'azure-model-name': 'x' })), UNCHANGED);
  });
});

describe('azure-openai: streams (fixture pair)', () => {
  const events = (data: string[]) => data.map((item) => ({ event: undefined, data: item }));

  test('choice-less first chunk held back, its filter results on the next chunk, deltas added, usage kept', () => {
    const { cloud, request, events: data, expected } = fixture('chat-stream.json');
    const decoder = adapter.streamDecoder!(call('chat', {}, request), target(cloud))!;
    const out = events(data).flatMap((event) => decoder.push(event));
    out.push(...decoder.end());
    assert.deepEqual(out, expected);
  });

  test('a stream holding only the filter chunk still sends it', () => {
    const { request, events: data } = fixture('chat-stream.json');
    const decoder = adapter.streamDecoder!(call('chat', {}, request), target({}))!;
    assert.deepEqual(decoder.push({ event: undefined, data: data[0] }), []);
    const rest = decoder.end() as Array<Record<string, unknown>>;
    assert.equal(rest.length, 1);
    assert.deepEqual(rest[0]!.choices, []);
    assert.ok(Array.isArray(rest[0]!.prompt_filter_results));
  });

  test('an error event keeps the provider message; a non-JSON event is an error', () => {
    const decoder = adapter.streamDecoder!(call('chat', {}, { model: 'm', messages: [], stream: true }), target({}))!;
    assert.throws(() => decoder.push({ event: undefined, data: '{"error":{"message":"The response was filtered","code":"content_filter"}}' }), (error) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.message, 'The response was filtered');
      assert.equal(error.code, 'content_filter');
      return true;
    });
    assert.throws(() => decoder.push({ event: undefined, data: 'not json' }), /not JSON/);
  });

  test('no decoder for answers that are not streams, nor for embeddings', () => {
    assert.equal(adapter.streamDecoder!(call('chat'), target({})), undefined);
    assert.equal(adapter.streamDecoder!(call('embeddings', {}, { model: 'm', input: 'x', stream: true }), target({})), undefined);
  });

  test('text completion streams are decoded too, without touching their choices', () => {
    const decoder = adapter.streamDecoder!(call('completions', {}, { model: 'm', prompt: 'p', stream: true }), target({}))!;
    const text = { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'gpt-35-turbo-instruct', choices: [{ text: 'Hi', index: 0, finish_reason: null, logprobs: null }] };
    assert.deepEqual(decoder.push({ event: undefined, data: JSON.stringify(text) }), [text]);
  });
});

test('capabilities: chat, completions, embeddings and pass-through, SSE', () => {
  assert.deepEqual([...adapter.capabilities.routes].sort(), ['chat', 'completions', 'embeddings', 'passthrough']);
  assert.equal(adapter.capabilities.framing, 'sse');
  assert.equal(adapter.defaultBaseUrl, undefined);
});
