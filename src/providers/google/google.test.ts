import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatMessage, ToolCall } from '../../core/openai-types.ts';
import type { InferenceCall, ProviderTarget, RouteKind } from '../contract.ts';
import type { Clock } from '../shared/clock.ts';
import { createGoogleAdapter, type EmbeddingList } from './index.ts';
import { toGeminiSchema } from './schema.ts';

const clock: Clock = { now: () => 1_700_000_000_000, newId: () => 'fixed' };
const adapter = createGoogleAdapter({ clock });
const target: ProviderTarget = { provider: 'google', baseUrl: 'https://generativelanguage.googleapis.com/v1beta', customHost: false, apiKey: 'AIza-test', cloud: {} };

function fixture(name: string) {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
}

function call(route: RouteKind, body: unknown, strict = true): InferenceCall {
  const rawBody = Buffer.from(JSON.stringify(body));
  return { route, method: 'POST', path: '', query: '', body, strictReferenceCompliance: strict, rawBody, contentType: 'application/json', params: {} };
}

function built(body: unknown, strict = true) {
  const request = adapter.buildRequest(call('chat', body, strict), target);
  return { ...request, json: JSON.parse(String(request.body)) };
}

function transform(route: RouteKind, json: unknown, body: unknown, strict = true): unknown {
  return adapter.responseTransform(route)!(json, call(route, body, strict), target);
}

function decode(body: Record<string, unknown>, events: unknown[], strict = true): unknown[] {
  const decoder = adapter.streamDecoder!(call('chat', body, strict), target)!;
  const out = events.flatMap((event) => decoder.push({ event: undefined, data: JSON.stringify(event) }));
  return [...out, ...decoder.end()];
}

describe('google: request in -> Gemini request', () => {
  test('chat fixture: URL, API key header, body and warnings', () => {
    const pair = fixture('chat-request.json');
    const request = built(pair.request, pair.strictReferenceCompliance);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(request.headers['x-goog-api-key'], 'AIza-test');
    assert.equal(request.headers.authorization, undefined);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(request.json, pair.expected);
    assert.deepEqual(request.warnings, pair.expectedWarnings);
  });

  test('streaming uses streamGenerateContent with alt=sse; a models/ prefix is not doubled', () => {
    const request = built({ model: 'models/gemini-2.0-flash', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    assert.equal(request.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    assert.deepEqual(request.json, { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    assert.deepEqual(request.warnings, []);
  });

  test('thinking is sent only in non-strict mode; disabled and reasoning_effort map to budgets', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    const on = built({ model: 'm', messages, thinking: { type: 'enabled', budget_tokens: 2048 } }, false);
    assert.deepEqual(on.json.generationConfig, { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } });
    assert.deepEqual(on.warnings, []);
    const off = built({ model: 'm', messages, thinking: { type: 'disabled' } }, false);
    assert.deepEqual(off.json.generationConfig, { thinkingConfig: { thinkingBudget: 0 } });
    const effort = built({ model: 'm', messages, reasoning_effort: 'low' });
    assert.deepEqual(effort.json.generationConfig, { thinkingConfig: { thinkingBudget: 1024 } });
    const strict = built({ model: 'm', messages, thinking: { type: 'enabled', budget_tokens: 2048 } }, true);
    assert.equal(strict.json.generationConfig, undefined);
    assert.equal(strict.warnings.length, 1);
  });

  test('response_format: json_object and json_schema (schema cleaned), max_completion_tokens wins', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    const object = built({ model: 'm', messages, response_format: { type: 'json_object' } });
    assert.deepEqual(object.json.generationConfig, { responseMimeType: 'application/json' });
    const schema = built({
      model: 'm', messages, max_tokens: 10, max_completion_tokens: 20,
      response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema: { type: 'object', additionalProperties: false, properties: { a: { type: 'integer' } }, required: ['a'] } } },
    });
    assert.deepEqual(schema.json.generationConfig, {
      maxOutputTokens: 20,
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
    });
    assert.deepEqual(schema.warnings, ['JSON schema keywords Gemini does not accept were dropped: additionalProperties']);
  });

  test('tool_choice: auto, none, required', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f' } }] };
    assert.deepEqual(built({ ...base, tool_choice: 'auto' }).json.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
    assert.deepEqual(built({ ...base, tool_choice: 'none' }).json.toolConfig, { functionCallingConfig: { mode: 'NONE' } });
    assert.deepEqual(built({ ...base, tool_choice: 'required' }).json.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
  });

  test('a tool result whose call id no assistant turn made is a 400 naming the message', () => {
    assert.throws(
      () => built({ model: 'm', messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', tool_call_id: 'nope', content: 'x' }] }),
      (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === 'messages[1].tool_call_id',
    );
  });

  test('bad tool arguments and unknown media are 400s', () => {
    const badArguments = [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '[1]' } }] }];
    assert.throws(() => built({ model: 'm', messages: badArguments }), (error: unknown) => error instanceof GatewayError && error.status === 400);
    const ftp = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }];
    assert.throws(() => built({ model: 'm', messages: ftp }), (error: unknown) => error instanceof GatewayError && error.param === 'messages[0].content[0].image_url.url');
  });

  test('schema conversion: Optional (anyOf with null), oneOf, const, recursive $ref stops', () => {
    const result = toGeminiSchema({
      type: 'object',
      properties: {
        maybe: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'optional text', default: null },
        either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        fixed: { const: 'x' },
        node: { $ref: '#/definitions/Node' },
      },
      definitions: { Node: { type: 'object', properties: { child: { $ref: '#/definitions/Node' } } } },
    });
    const properties = JSON.parse(JSON.stringify(result.schema.properties));
    assert.deepEqual(properties.maybe, { type: 'string', nullable: true, description: 'optional text', default: null });
    assert.deepEqual(properties.either, { anyOf: [{ type: 'string' }, { type: 'number' }] });
    assert.deepEqual(properties.fixed, { enum: ['x'] });
    let depth = 0;
    for (let node = properties.node; node?.properties?.child; node = node.properties.child) depth += 1;
    assert.ok(depth >= 5 && depth <= 10, `recursion is cut after a few levels (${depth})`);
    assert.deepEqual(result.dropped, ['$ref']);
  });

  test('a model name that could change the URL path is a 400', () => {
    for (const model of ['../files/x', 'models/../x', 'a/b', 'gemini%2F..']) {
      assert.throws(() => built({ model, messages: [{ role: 'user', content: 'Hi' }] }), (error: unknown) => error instanceof GatewayError && error.param === 'model', model);
    }
    assert.match(built({ model: 'tunedModels/my-model-1', messages: [{ role: 'user', content: 'Hi' }] }).url, /\/v1beta\/tunedModels\/my-model-1:generateContent$/);
  });

  test('pass-through keeps the bytes and adds the key header', () => {
    const passthrough = { ...call('passthrough', { a: 1 }), method: 'GET', path: '/models', query: 'pageSize=5', rawBody: undefined, body: undefined };
    const request = adapter.buildRequest(passthrough, target);
    assert.equal(request.url, 'https://generativelanguage.googleapis.com/v1beta/models?pageSize=5');
    assert.deepEqual(request.headers, { 'x-goog-api-key': 'AIza-test' });
  });
});

describe('google: Gemini answer -> answer out', () => {
  for (const name of ['chat-response.json', 'chat-response-thinking-tools.json']) {
    test(`fixture ${name}`, () => {
      const pair = fixture(name);
      const out = transform('chat', pair.providerResponse, { model: pair.model, messages: [] }, pair.strictReferenceCompliance);
      assert.deepEqual(out, pair.expected);
    });
  }

  test('strict mode drops thought parts (no content_blocks, thoughts not in content)', () => {
    const pair = fixture('chat-response-thinking-tools.json');
    const out = transform('chat', pair.providerResponse, { model: pair.model, messages: [] }, true) as ChatCompletion;
    assert.equal(out.choices[0]?.message.content, 'Checking both.');
    assert.equal(out.choices[0]?.message.content_blocks, undefined);
  });

  test('a blocked prompt is one content_filter choice; usage without counts is left out; garbage throws', () => {
    const out = transform('chat', { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: {} }, { model: 'm', messages: [] }) as ChatCompletion;
    assert.deepEqual(out.choices, [{ index: 0, message: { role: 'assistant', content: null }, logprobs: null, finish_reason: 'content_filter', native_finish_reason: 'PROHIBITED_CONTENT' }]);
    assert.equal(out.usage, undefined);
    assert.equal(out.model, 'm');
    assert.throws(() => transform('chat', { hello: 'world' }, { model: 'm', messages: [] }), /neither candidates nor promptFeedback/);
  });

  test('error body: message and status kept, array-wrapped form too', () => {
    const pair = fixture('error.json');
    assert.deepEqual(adapter.parseError!(pair.status, pair.providerResponse), pair.expected);
    assert.deepEqual(adapter.parseError!(pair.status, [pair.providerResponse]), pair.expected);
    assert.equal(adapter.parseError!(500, { nope: true }), undefined);
  });
});

describe('google: stream decoder', () => {
  test('fixture: thinking blocks, text, parallel tool calls with signature, finish, usage last', () => {
    const pair = fixture('chat-stream.json');
    const body = { model: pair.model, messages: [], stream: true, stream_options: { include_usage: pair.includeUsage } };
    assert.deepEqual(decode(body, pair.events, pair.strictReferenceCompliance), pair.expected);
  });

  test('strict mode and no include_usage: no thinking, no usage chunk', () => {
    const pair = fixture('chat-stream.json');
    const chunks = decode({ model: pair.model, messages: [], stream: true }, pair.events, true) as ChatCompletionChunk[];
    assert.ok(chunks.every((chunk) => chunk.usage === undefined));
    assert.ok(chunks.every((chunk) => chunk.choices.every((choice) => choice.delta.content_blocks === undefined)));
    assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Let me check.');
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
  });

  test('an error event is thrown as a GatewayError with the provider status and message; garbage is a 502', () => {
    const decoder = adapter.streamDecoder!(call('chat', { model: 'm', messages: [], stream: true }), target)!;
    assert.throws(
      () => decoder.push({ event: undefined, data: JSON.stringify({ error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } }) }),
      (error: unknown) => error instanceof GatewayError && error.status === 429 && error.message === 'Resource has been exhausted' && error.code === 'RESOURCE_EXHAUSTED',
    );
    assert.throws(() => decoder.push({ event: undefined, data: 'not json' }), (error: unknown) => error instanceof GatewayError && error.status === 502);
  });

  test('no decoder for non-streamed chat or embeddings', () => {
    assert.equal(adapter.streamDecoder!(call('chat', { model: 'm', messages: [] }), target), undefined);
    assert.equal(adapter.streamDecoder!(call('embeddings', { model: 'm', input: 'x' }), target), undefined);
  });
});

describe('google: thought_signature round trip', () => {
  const next = (assistant: ChatMessage, calls: ToolCall[]) => ({
    model: 'gemini-3-pro-preview',
    messages: [
      { role: 'user', content: 'Weather in Paris and London?' },
      assistant,
      ...calls.map((item, index) => ({ role: 'tool', tool_call_id: item.id, content: `{"temp":${20 + index}}` })),
    ],
  });

  test('non-streamed: the signature on the answer goes back on the same functionCall part', () => {
    const pair = fixture('chat-response-thinking-tools.json');
    const answer = transform('chat', pair.providerResponse, { model: 'm', messages: [] }) as ChatCompletion;
    const message = answer.choices[0]!.message;
    const request = built(next({ role: 'assistant', content: message.content, tool_calls: message.tool_calls! }, message.tool_calls!));
    const modelTurn = request.json.contents[1];
    assert.equal(modelTurn.role, 'model');
    assert.deepEqual(modelTurn.parts.slice(1), [
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQBVKhc7ZsigA==' },
      { functionCall: { name: 'get_weather', args: { city: 'London' } } },
    ]);
    assert.deepEqual(request.json.contents[2].parts.map((part: { functionResponse: { name: string } }) => part.functionResponse.name), ['get_weather', 'get_weather']);
  });

  test('streamed: tool call deltas assembled by a client carry the signature back', () => {
    const pair = fixture('chat-stream.json');
    const chunks = decode({ model: 'm', messages: [], stream: true }, pair.events) as ChatCompletionChunk[];
    const calls: ToolCall[] = [];
    for (const chunk of chunks) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        const existing = calls[delta.index];
        if (existing) existing.function.arguments += delta.function?.arguments ?? '';
        else calls[delta.index] = { id: delta.id!, type: 'function', function: { name: delta.function!.name!, arguments: delta.function?.arguments ?? '' }, ...(delta.thought_signature ? { thought_signature: delta.thought_signature } : {}) };
      }
    }
    const request = built(next({ role: 'assistant', content: 'Let me check.', tool_calls: calls }, calls));
    assert.equal(request.json.contents[1].parts[1].thoughtSignature, 'U0lHLTE=');
    assert.deepEqual(request.json.contents[1].parts[1].functionCall, { name: 'get_weather', args: { city: 'Paris' } });
    assert.equal(request.json.contents[1].parts[2].thoughtSignature, undefined);
  });
});

describe('google: embeddings', () => {
  test('fixture: batchEmbedContents body, URL, answer without made-up usage', () => {
    const pair = fixture('embeddings.json');
    const request = adapter.buildRequest(call('embeddings', pair.request), target);
    assert.equal(request.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:batchEmbedContents');
    assert.equal(request.headers['x-goog-api-key'], 'AIza-test');
    assert.deepEqual(JSON.parse(String(request.body)), pair.expectedBody);
    assert.deepEqual(request.warnings, []);
    const out = transform('embeddings', pair.providerResponse, pair.request);
    assert.deepEqual(out, pair.expected);
    assert.equal('usage' in (out as EmbeddingList), false);
  });

  test('base64 encoding is float32 little-endian; token ids are a 400', () => {
    const pair = fixture('embeddings.json');
    const out = transform('embeddings', pair.providerResponse, { ...pair.request, encoding_format: 'base64' }) as EmbeddingList;
    const bytes = Buffer.from(String(out.data[0]?.embedding), 'base64');
    assert.deepEqual([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)], [0.5, -0.25, 0.125]);
    assert.throws(() => adapter.buildRequest(call('embeddings', { model: 'm', input: [1, 2, 3] }), target), (error: unknown) => error instanceof GatewayError && error.param === 'input');
  });
});
