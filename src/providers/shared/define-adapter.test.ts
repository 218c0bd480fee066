import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inferenceCall } from '../../../test/helpers/provider-cases.ts';
import type { CallParts } from '../../core/inference-call.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import { defineAdapter } from './define-adapter.ts';

const target: ProviderTarget = { provider: 'example', baseUrl: 'https://api.example/v1', customHost: false, apiKey: 'k', cloud: {} };

function call(route: RouteKind, extra: Partial<CallParts> = {}): InferenceCall {
  return inferenceCall(route, { model: 'm' }, { path: '/files', ...extra });
}

const checked: string[] = [];
const adapter = defineAdapter({
  name: 'example',
  capabilities: { streaming: false, tools: false, framing: 'sse' },
  defaultBaseUrl: 'https://api.example/v1',
  headers: (to) => ({ 'x-key': to.apiKey ?? '' }),
  checkTarget: (to) => void checked.push(to.provider),
  routes: {
    rerank: {
      request: (_call, to) => ({ url: `${to.baseUrl}/rank`, body: { query: 'q' }, warnings: ['w'], headers: { accept: 'application/json' } }),
      response: () => 'read',
    },
  },
});

test('the routes are the declared ones plus pass-through', () => {
  assert.deepEqual([...adapter.capabilities.routes], ['rerank', 'passthrough']);
});

test('a built route gets the adapter headers, a JSON body and its own headers', () => {
  const built = adapter.buildRequest(call('rerank'), target);
  assert.deepEqual(built, {
    method: 'POST',
    url: 'https://api.example/v1/rank',
    headers: { 'x-key': 'k', 'content-type': 'application/json', accept: 'application/json' },
    body: '{"query":"q"}',
    warnings: ['w'],
  });
  assert.equal(adapter.responseTransform('rerank')?.({}, call('rerank'), target), 'read');
});

test('pass-through: the client bytes, content type and query to the same path, with the adapter headers only', () => {
  const rawBody = Buffer.from('--b\r\nhi');
  const built = adapter.buildRequest(call('passthrough', { rawBody, contentType: 'multipart/form-data; boundary=b', query: 'a=1&b=2' }), target);
  assert.deepEqual(built, {
    method: 'POST',
    url: 'https://api.example/v1/files?a=1&b=2',
    headers: { 'x-key': 'k', 'content-type': 'multipart/form-data; boundary=b' },
    body: rawBody,
    warnings: [],
  });
  assert.equal(adapter.responseTransform('passthrough'), undefined);
  assert.equal(adapter.streamDecoder?.(call('passthrough'), target), undefined);
});

test('pass-through without bytes (a GET, or an empty body) sends no body and no content type', () => {
  for (const rawBody of [undefined, Buffer.alloc(0)]) {
    const built = adapter.buildRequest(call('passthrough', { method: 'GET', rawBody }), target);
    assert.equal(built.body, undefined);
    assert.deepEqual(built.headers, { 'x-key': 'k' });
  }
});

test('the target is checked before any request is built; an undeclared route is a 400', () => {
  checked.length = 0;
  adapter.buildRequest(call('passthrough'), target);
  assert.deepEqual(checked, ['example']);
  assert.throws(() => adapter.buildRequest(call('chat'), target), (error: Error & { status?: number; code?: string }) => error.status === 400 && error.code === 'unsupported_route');
});
