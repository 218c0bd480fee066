/** The one answer reader: what each kind of upstream answer becomes before anyone else looks at it. */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import type { UpstreamAttempt } from '../../src/pipeline/call-upstream.ts';
import { GatewayError } from '../../src/core/errors.ts';
import { readAnswer, type ReadContext } from '../../src/pipeline/read-answer.ts';
import type { InferenceCall, ProviderAdapter, RouteKind } from '../../src/providers/contract.ts';
import { createProviderRegistry } from '../../src/providers/registry.ts';

const registry = createProviderRegistry();

function attempt(status: number, body: string, contentType = 'application/json'): UpstreamAttempt & { ended: boolean[] } {
  const ended: boolean[] = [];
  // undici's body: a Readable with text()
  const stream = Object.assign(Readable.from([Buffer.from(body)]), { text: async () => body });
  return {
    request: { method: 'POST', url: 'http://upstream.test/v1/x', headers: {}, body: undefined, warnings: [] },
    response: { statusCode: status, headers: { 'content-type': contentType }, body: stream } as unknown as UpstreamAttempt['response'],
    done: (completed = false) => void ended.push(completed),
    timedOut: () => false,
    ended,
  };
}

function context(provider: string, route: RouteKind, body: unknown = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, collectsStream = false): ReadContext {
  const adapter = registry.get(provider) as ProviderAdapter;
  const call = { route, method: 'POST', path: route === 'passthrough' ? '/files' : '', query: '', body, strictReferenceCompliance: true, rawBody: undefined, contentType: 'application/json', params: {} } as InferenceCall;
  return { adapter, target: { provider, baseUrl: 'http://upstream.test/v1', customHost: true, apiKey: 'k', cloud: {} }, call, timeoutMs: undefined, collectsStream };
}

test('an OpenAI-format JSON answer is read once and kept as the provider\'s bytes', async () => {
  const text = '{"id":"c","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1}}';
  const answer = await readAnswer(attempt(200, text), context('openai', 'chat'));
  assert.equal(answer.kind, 'json');
  if (answer.kind !== 'json') return;
  assert.equal(answer.unchanged, true);
  assert.equal(answer.text, text);
  assert.deepEqual(answer.canonical, JSON.parse(text));
});

test('a provider format is converted to the canonical shape', async () => {
  const anthropic = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'Hello' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } };
  const answer = await readAnswer(attempt(200, JSON.stringify(anthropic)), context('anthropic', 'chat'));
  assert.equal(answer.kind, 'json');
  if (answer.kind !== 'json') return;
  assert.equal(answer.unchanged, false);
  const canonical = answer.canonical as { object: string; choices: Array<{ message: { content: string } }> };
  assert.equal(canonical.object, 'chat.completion');
  assert.equal(canonical.choices[0]?.message.content, 'Hello');
});

test('an OpenAI-shaped provider error passes as written; another shape is put into the error shape', async () => {
  const openAi = await readAnswer(attempt(429, '{"error":{"message":"slow down","type":"rate_limit"}}'), context('openai', 'chat'));
  assert.equal(openAi.kind, 'provider-error');
  if (openAi.kind === 'provider-error') assert.deepEqual(openAi.body, { error: { message: 'slow down', type: 'rate_limit' } });
  const text = await readAnswer(attempt(503, 'upstream down', 'text/plain'), context('openai', 'chat'));
  assert.equal(text.kind, 'provider-error');
  if (text.kind === 'provider-error') {
    assert.equal(text.status, 503);
    assert.deepEqual(text.body, { error: { message: 'upstream down', type: 'upstream_error', param: null, code: 'provider_status_503' } });
  }
});

test('a 2xx answer that is not JSON is a 502', async () => {
  await assert.rejects(readAnswer(attempt(200, '<html>'), context('openai', 'chat')), (error: unknown) => error instanceof GatewayError && error.status === 502);
});

test('pass-through answers and unread OpenAI streams are relayed unread; a stream to check is decoded', async () => {
  const passthrough = attempt(200, 'bytes', 'application/octet-stream');
  assert.equal((await readAnswer(passthrough, context('openai', 'passthrough'))).kind, 'relay');
  assert.deepEqual(passthrough.ended, [], 'nothing was read or ended');
  const sse = 'data: {"choices":[]}\n\ndata: [DONE]\n\n';
  assert.equal((await readAnswer(attempt(200, sse, 'text/event-stream'), context('openai', 'chat'))).kind, 'relay');
  const collected = await readAnswer(attempt(200, sse, 'text/event-stream'), context('openai', 'chat', undefined, true));
  assert.equal(collected.kind, 'stream');
  if (collected.kind === 'stream') {
    assert.equal(collected.translated, false);
    assert.deepEqual(collected.decoder.push({ event: undefined, data: '{"choices":[]}' }), [{ choices: [] }]);
    assert.deepEqual(collected.decoder.push({ event: undefined, data: '[DONE]' }), [], 'the provider\'s [DONE] is held back');
  }
  const anthropicStream = await readAnswer(attempt(200, '', 'text/event-stream'), context('anthropic', 'chat', { model: 'm', messages: [], stream: true }));
  assert.equal(anthropicStream.kind, 'stream');
  if (anthropicStream.kind === 'stream') assert.equal(anthropicStream.translated, true);
});
