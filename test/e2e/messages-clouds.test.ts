/**
 * POST /v1/messages to Claude on Vertex AI and on Bedrock, natively, with the official @anthropic-ai/sdk client:
 * the client's Messages body reaches the cloud's own operation (rawPredict / streamRawPredict with
 * `anthropic_version: vertex-2023-10-16`; InvokeModel / InvokeModelWithResponseStream with
 * `anthropic_version: bedrock-2023-05-31` and `anthropic-beta` moved into the body, SigV4-signed), without `model`,
 * with cache_control, thinking and signatures byte for byte; answers and streams (AWS event-stream chunks turned
 * back into the Messages SSE stream) come back as Claude wrote them. Other models on those clouds still go
 * through the chat form.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { request } from 'undici';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-upstream.ts';
import { startFakeBedrock, type BedrockRecordedRequest, type FakeBedrock } from '../fakes/bedrock-upstream.ts';
import type { FakeServer } from '../fakes/google-upstream.ts';
import { PROJECT, REGION, startFakeVertexUpstream } from '../fakes/vertex-upstream.ts';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { anthropicClient, bedrockHeaders as cloudBedrockHeaders, vertexHeaders as cloudVertexHeaders } from '../helpers/claude-clouds.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const VERTEX_TOKEN = 'ya29.vertex-client-token';
const ACCESS_KEY_ID = 'AKIDMESSAGESTEST';
const SECRET = 'messages-test-secret';
const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const VERTEX_MODEL = 'claude-sonnet-4-5@20250929';
// a signature as Anthropic writes them: base64 with `+`, `/` and `=`, which no layer may re-encode
const EARLIER_SIGNATURE = 'EqQBCkYIBxgCKkB+Zm9v/YmFy+earlier==';

let gateway: TestGateway;
let vertex: FakeServer;
let bedrock: FakeBedrock;
let anthropic: FakeAnthropic;

before(async () => {
  [vertex, bedrock, anthropic, gateway] = await Promise.all([
    startFakeVertexUpstream({ acceptToken: (token) => token === VERTEX_TOKEN }),
    startFakeBedrock({ [ACCESS_KEY_ID]: SECRET }),
    startFakeAnthropic(),
    startTestGateway(),
  ]);
});

after(async () => {
  await gateway.close();
  await Promise.all([vertex.close(), bedrock.close(), anthropic.close()]);
});

const vertexHeaders = () => cloudVertexHeaders(gateway, vertex.origin);
const bedrockHeaders = () => cloudBedrockHeaders(gateway, bedrock.baseUrl, { accessKeyId: ACCESS_KEY_ID, secret: SECRET });
const client = (headers: Record<string, string>, apiKey?: string) => anthropicClient(gateway, headers, apiKey);

/** A second turn: an earlier assistant turn with its signed thinking, cache_control on system and user blocks. */
function secondTurn(model: string) {
  return {
    model,
    max_tokens: 2048,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    thinking: { type: 'enabled', budget_tokens: 1024 },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Think first.', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Earlier thought.', signature: EARLIER_SIGNATURE }, { type: 'text', text: 'Done.' }] },
      { role: 'user', content: 'Again' },
    ],
  } as unknown as Anthropic.MessageCreateParamsNonStreaming;
}

/** What the cloud must receive: the client's body without `model` (and, on Bedrock, without `stream`). */
function expectedBody(sent: Record<string, unknown>, extra: Record<string, unknown>, drop: readonly string[] = []) {
  const { model: _model, ...rest } = sent;
  for (const field of drop) delete rest[field];
  return { ...extra, ...rest };
}

function lastSigned(): BedrockRecordedRequest {
  const last = bedrock.requests.at(-1);
  assert.ok(last?.signedBy, 'the fake Bedrock received a validly signed request');
  return last;
}

describe('Claude on Vertex AI, natively', () => {
  const location = `/v1/projects/${PROJECT}/locations/${REGION}`;

  test('rawPredict: the Messages body with the Vertex version, no model; thinking and signatures untouched both ways', async () => {
    const body = secondTurn(VERTEX_MODEL);
    const { data, response } = await client(vertexHeaders(), VERTEX_TOKEN).messages.create(body, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } }).withResponse();
    assert.equal(response.headers.get('x-gateway-provider'), 'vertex-ai');
    const seen = vertex.requests.at(-1)!;
    assert.equal(seen.url, `${location}/publishers/anthropic/models/${VERTEX_MODEL}:rawPredict`);
    assert.equal(seen.headers.authorization, `Bearer ${VERTEX_TOKEN}`);
    assert.deepEqual(seen.json, expectedBody(body as unknown as Record<string, unknown>, { anthropic_version: 'vertex-2023-10-16' }));
    assert.equal(seen.headers['anthropic-beta'], 'context-1m-2025-08-07', 'Vertex reads the beta header');
    assert.equal(seen.headers['anthropic-version'], undefined, 'the version travels in the body');
    assert.deepEqual(data.content, [
      { type: 'thinking', thinking: 'Vertex thinks.', signature: 'ErUBCkYIBxgCIkD/vertex+sig==' },
      { type: 'text', text: 'Hello from Claude on Vertex' },
    ]);
    assert.equal(data.id, 'msg_vrtx_01');
    assert.deepEqual(data.usage, { input_tokens: 25, output_tokens: 12, cache_read_input_tokens: 5 });
  });

  test('streamRawPredict: the stream comes back as Claude sent it; the SDK assembles thinking and tool input', async () => {
    const body = { ...secondTurn(VERTEX_MODEL), tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }] };
    const message = await client(vertexHeaders(), VERTEX_TOKEN).messages.stream(body).finalMessage();
    const seen = vertex.requests.at(-1)!;
    assert.equal(seen.url, `${location}/publishers/anthropic/models/${VERTEX_MODEL}:streamRawPredict`);
    assert.equal((seen.json as { stream?: unknown }).stream, true);
    assert.equal('model' in (seen.json as object), false);
    assert.deepEqual(message.content, [
      { type: 'thinking', thinking: 'Vertex thinks.', signature: 'ErUBCkYIBxgCIkD/vertex+sig==' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_vrtx_01', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal(message.usage.output_tokens, 30);
  });

  test('a Gemini model on the same cloud still goes through the chat form and comes back a Message', async () => {
    const message = await client(vertexHeaders(), VERTEX_TOKEN).messages.create({ model: 'gemini-2.0-flash', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(vertex.requests.at(-1)!.url, `${location}/publishers/google/models/gemini-2.0-flash:generateContent`);
    assert.equal(message.type, 'message');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello from Gemini' }]);
  });
});

describe('Claude on Bedrock, natively', () => {
  test('InvokeModel: the Messages body with the Bedrock version, anthropic-beta in the body, signed; the Message back', async () => {
    const body = secondTurn(BEDROCK_MODEL);
    const { data, response } = await client(bedrockHeaders()).messages.create(body, { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07' } }).withResponse();
    assert.equal(response.headers.get('x-gateway-provider'), 'bedrock');
    const seen = lastSigned();
    assert.equal(seen.url, `/model/${encodeURIComponent(BEDROCK_MODEL)}/invoke`);
    assert.deepEqual(seen.json, expectedBody(body as unknown as Record<string, unknown>, { anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'] }));
    assert.equal(seen.headers['anthropic-beta'], undefined);
    assert.equal(seen.headers['anthropic-version'], undefined);
    assert.deepEqual(data.content, [
      { type: 'thinking', thinking: 'Bedrock thinks.', signature: 'EqQBCkYIBxgCKkB+/bedrock==' },
      { type: 'text', text: 'Hello from Claude on Bedrock' },
    ]);
    assert.equal(data.id, 'msg_bdrk_01');
  });

  test('InvokeModelWithResponseStream: AWS event-stream chunks become the exact Messages event stream', async () => {
    const body = { ...secondTurn(BEDROCK_MODEL), stream: true };
    const response = await request(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...bedrockHeaders() },
      body: JSON.stringify(body),
    });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /text\/event-stream/);
    const text = await response.body.text();
    const seen = lastSigned();
    assert.equal(seen.url, `/model/${encodeURIComponent(BEDROCK_MODEL)}/invoke-with-response-stream`);
    assert.deepEqual(seen.json, expectedBody(body, { anthropic_version: 'bedrock-2023-05-31' }, ['stream']));
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    const events = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      const data = JSON.parse(dataLine!.slice('data: '.length)) as { type: string };
      assert.equal(eventLine, `event: ${data.type}`);
      return data;
    });
    assert.deepEqual(events.map((event) => event.type), [
      'message_start',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    assert.deepEqual(events[3], { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCkYIBxgCKkB+/bedrock==' } });
  });

  test('the SDK stream helpers assemble it, and the request log counts its usage', async () => {
    const traceId = 'messages-bedrock-stream-log';
    const message = await client({ ...bedrockHeaders(), 'x-gateway-trace-id': traceId }).messages.stream(secondTurn(BEDROCK_MODEL)).finalMessage();
    assert.deepEqual(message.content, [
      { type: 'thinking', thinking: 'Bedrock thinks.', signature: 'EqQBCkYIBxgCKkB+/bedrock==' },
      { type: 'text', text: 'Hello from Claude on Bedrock' },
    ]);
    assert.equal(message.id, 'msg_bdrk_02');
    assert.equal(message.stop_reason, 'end_turn');
    await gateway.gateway.requestLog.flush();
    const [row] = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, traceId);
    assert.ok(row);
    assert.equal(row.provider, 'bedrock');
    assert.deepEqual([row.promptTokens, row.completionTokens], [58, 9], 'input plus cache reads, and message_delta\'s output');
  });

  test('a model that is not Claude still goes through Converse', async () => {
    const message = await client(bedrockHeaders()).messages.create({ model: 'amazon.nova-pro-v1:0', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(lastSigned().url, `/model/${encodeURIComponent('amazon.nova-pro-v1:0')}/converse`);
    assert.deepEqual(message.content, [{ type: 'text', text: 'Paris is sunny.' }]);
  });
});

describe('the Messages protocol headers and a target\'s own forward_headers', () => {
  const config = (target: Record<string, unknown>) => JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target, forward_headers: ['x-team'] }] });

  test('anthropic-version and anthropic-beta still reach a native Anthropic target, beside the target\'s list', async () => {
    const target = { provider: 'anthropic', custom_host: anthropic.baseUrl, api_key: 'sk-ant-provider' };
    const headers = { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': config(target), 'anthropic-version': '2023-06-01', 'x-team': 'blue' };
    const message = await client(headers).messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } });
    assert.equal(message.type, 'message');
    const seen = anthropic.requests.at(-1)!;
    assert.equal(seen.headers['anthropic-beta'], 'prompt-caching-2024-07-31');
    assert.equal(seen.headers['anthropic-version'], '2023-06-01', 'the fake refuses any other version');
    assert.equal(seen.headers['x-team'], 'blue', 'the target\'s own list is forwarded too');
  });

  test('on Bedrock, the beta still lands in the body', async () => {
    const target = { provider: 'bedrock', custom_host: bedrock.baseUrl, aws_region: 'us-east-1', aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET };
    const headers = { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': config(target) };
    await client(headers).messages.create({ model: BEDROCK_MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } });
    assert.deepEqual((lastSigned().json as { anthropic_beta?: unknown }).anthropic_beta, ['context-1m-2025-08-07']);
  });
});
