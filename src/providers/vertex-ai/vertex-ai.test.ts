import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import type { Clock } from '../shared/clock.ts';
import { createVertexAdapter } from './index.ts';

const clock: Clock = { now: () => 1_700_000_000_000, newId: () => 'fixed' };
const adapter = createVertexAdapter({ clock });
const cloud = { 'vertex-project-id': 'my-project', 'vertex-region': 'us-central1' };
const target: ProviderTarget = { provider: 'vertex-ai', baseUrl: adapter.baseUrlFor!(cloud), customHost: false, apiKey: 'ya29.token', cloud };
const custom: ProviderTarget = { ...target, baseUrl: 'http://127.0.0.1:9/v1', customHost: true };

function fixture(name: string) {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
}

function call(route: RouteKind, body: unknown, strict = true): InferenceCall {
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: strict, rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json', params: {} };
}

const is400For = (param: string) => (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === param;

describe('vertex-ai: base URL from the cloud headers', () => {
  test('regional and global hosts', () => {
    assert.equal(adapter.baseUrlFor!(cloud), 'https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1');
    assert.equal(adapter.baseUrlFor!({ ...cloud, 'vertex-region': 'global' }), 'https://aiplatform.googleapis.com/v1/projects/my-project/locations/global');
  });

  test('a missing project or region is a 400 naming its header; a malformed one too', () => {
    assert.throws(() => adapter.baseUrlFor!({ 'vertex-region': 'us-central1' }), is400For('x-gateway-vertex-project-id'));
    assert.throws(() => adapter.baseUrlFor!({ 'vertex-project-id': 'p' }), is400For('x-gateway-vertex-region'));
    assert.throws(() => adapter.baseUrlFor!({ ...cloud, 'vertex-region': '../x' }), is400For('x-gateway-vertex-region'));
  });
});

describe('vertex-ai: requests', () => {
  test('Gemini chat, plain and streamed, with the Gemini body', () => {
    const body = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 };
    const plain = adapter.buildRequest(call('chat', body), target);
    assert.equal(plain.url, 'https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent');
    assert.deepEqual(JSON.parse(String(plain.body)), { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { maxOutputTokens: 5 } });
    const streamed = adapter.buildRequest(call('chat', { ...body, stream: true }), custom);
    assert.equal(streamed.url, 'http://127.0.0.1:9/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  });

  test('a model id that could change the path is a 400', () => {
    assert.throws(() => adapter.buildRequest(call('chat', { model: '../../x', messages: [] }), target), is400For('model'));
  });

  test('embeddings fixture: predict body and answer with usage from the token counts', () => {
    const pair = fixture('embeddings-predict.json');
    const request = adapter.buildRequest(call('embeddings', pair.request), target);
    assert.equal(request.url, `${target.baseUrl}/publishers/google/models/text-embedding-005:predict`);
    assert.deepEqual(JSON.parse(String(request.body)), pair.expectedBody);
    assert.deepEqual(adapter.responseTransform('embeddings')!(pair.providerResponse, call('embeddings', pair.request), target), pair.expected);
    const noStatistics = { predictions: [{ embeddings: { values: [1] } }] };
    const out = adapter.responseTransform('embeddings')!(noStatistics, call('embeddings', pair.request), target) as Record<string, unknown>;
    assert.equal(out.usage, undefined, 'an unknown token count is left out, not 0');
  });

  test('rerank fixture: Discovery Engine URL, records, sorted results with the original index', () => {
    const pair = fixture('rerank.json');
    const request = adapter.buildRequest(call('rerank', pair.request), target);
    assert.equal(request.url, 'https://discoveryengine.googleapis.com/v1/projects/my-project/locations/global/rankingConfigs/default_ranking_config:rank');
    assert.deepEqual(JSON.parse(String(request.body)), pair.expectedBody);
    assert.deepEqual(adapter.responseTransform('rerank')!(pair.providerResponse, call('rerank', pair.request), target), pair.expected);
  });

  test('rerank: a ranking config resource name is the URL resource and no model is sent; documents left out by default', () => {
    const model = 'projects/other-project/locations/global/rankingConfigs/my_config';
    const request = adapter.buildRequest(call('rerank', { model, query: 'q', documents: ['a'] }), custom);
    assert.equal(request.url, `http://127.0.0.1:9/v1/${model}:rank`);
    const body = JSON.parse(String(request.body));
    assert.equal(body.model, undefined);
    assert.equal(body.ignoreRecordDetailsInResponse, true);
    assert.throws(() => adapter.buildRequest(call('rerank', { model: 'projects/x/../../y', query: 'q', documents: ['a'] }), target), is400For('model'));
    const answer = adapter.responseTransform('rerank')!({ records: [{ id: '0', score: 0.5 }] }, call('rerank', { model, query: 'q', documents: ['a'] }), target);
    assert.deepEqual((answer as { results: unknown[] }).results, [{ index: 0, relevance_score: 0.5 }]);
    assert.throws(() => adapter.responseTransform('rerank')!({ nope: 1 }, call('rerank', { model, query: 'q', documents: ['a'] }), target), /no records/);
  });

  test('pass-through goes under the location', () => {
    const passthrough = { ...call('passthrough', {}), path: '/publishers/google/models/gemini-2.0-flash:countTokens' };
    assert.equal(adapter.buildRequest(passthrough, target).url, `${target.baseUrl}/publishers/google/models/gemini-2.0-flash:countTokens`);
  });
});

describe('vertex-ai: prepare (credentials)', () => {
  test('a bearer access token is used as it is', async () => {
    const request = adapter.buildRequest(call('chat', { model: 'gemini-2.0-flash', messages: [] }), target);
    const prepared = await adapter.prepare!(request, target);
    assert.equal(prepared.headers.authorization, 'Bearer ya29.token');
    assert.equal(prepared.headers['content-type'], 'application/json');
  });

  test('no credentials at all is a 400 that says what to send', async () => {
    const request = adapter.buildRequest(call('chat', { model: 'gemini-2.0-flash', messages: [] }), target);
    await assert.rejects(adapter.prepare!(request, { ...target, apiKey: undefined }), is400For('authorization'));
  });
});

describe('vertex-ai: Claude models (the Anthropic mappers)', () => {
  const body = { model: 'claude-sonnet-4-5@20250929', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 };

  test('rawPredict and streamRawPredict under publishers/anthropic; vertex anthropic_version, no model in the body', () => {
    const plain = adapter.buildRequest(call('chat', body), target);
    assert.equal(plain.url, `${target.baseUrl}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
    const json = JSON.parse(String(plain.body));
    assert.equal(json.anthropic_version, 'vertex-2023-10-16');
    assert.equal(json.model, undefined);
    assert.equal(json.max_tokens, 64);
    const streamed = adapter.buildRequest(call('chat', { ...body, stream: true }), target);
    assert.equal(streamed.url, `${target.baseUrl}/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`);
    assert.equal(JSON.parse(String(streamed.body)).stream, true);
  });

  test('answers and streams go through the Anthropic converters; Gemini ones do not', () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Hi!' }], stop_reason: 'max_tokens', usage: { input_tokens: 3, output_tokens: 2 } };
    const out = adapter.responseTransform('chat')!(message, call('chat', body), target) as { provider: string; choices: Array<{ message: { content: string }; finish_reason: string }>; usage: { total_tokens: number } };
    assert.equal(out.provider, 'vertex-ai');
    assert.equal(out.choices[0]?.message.content, 'Hi!');
    assert.equal(out.choices[0]?.finish_reason, 'length');
    assert.equal(out.usage.total_tokens, 5);
    assert.equal(adapter.streamDecoder!(call('chat', body), target), undefined);
    const decoder = adapter.streamDecoder!(call('chat', { ...body, stream: true }), target)!;
    const chunks = decoder.push({ event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hey' } }) });
    assert.ok(JSON.stringify(chunks).includes('"Hey"'));
  });

  test('errors: Google shape and Claude shape both keep the message', () => {
    assert.deepEqual(adapter.parseError!(404, { error: { code: 404, message: 'Publisher model not found.', status: 'NOT_FOUND' } }), { message: 'Publisher model not found.', code: 'NOT_FOUND' });
    assert.deepEqual(adapter.parseError!(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), { message: 'Overloaded', type: 'overloaded_error' });
  });
});
