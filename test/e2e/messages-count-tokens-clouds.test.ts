/**
 * POST /v1/messages/count_tokens to Claude on Vertex AI and on Bedrock, natively, with the official
 * @anthropic-ai/sdk client's `messages.countTokens`: Vertex gets a rawPredict to the publisher's `count-tokens`
 * model with the Messages body (model kept, `anthropic_version: vertex-2023-10-16` added); Bedrock gets CountTokens
 * with the InvokeModel body base64-encoded in `input.invokeModel.body` (SigV4-signed, `anthropic-beta` inside it),
 * and its `{inputTokens}` comes back as `{input_tokens}`. Other models on those clouds answer a 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { bedrockTokenCount, countedInvokeBody, startFakeBedrock, type BedrockRecordedRequest, type FakeBedrock } from '../fakes/bedrock-upstream.ts';
import type { FakeServer } from '../fakes/google-upstream.ts';
import { PROJECT, REGION, startFakeVertexUpstream, vertexTokenCount } from '../fakes/vertex-upstream.ts';
import { anthropicClient, bedrockHeaders as cloudBedrockHeaders, vertexHeaders as cloudVertexHeaders } from '../helpers/claude-clouds.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const VERTEX_TOKEN = 'ya29.vertex-count-token';
const ACCESS_KEY_ID = 'AKIDCOUNTTOKENSTEST';
const SECRET = 'count-tokens-test-secret';
const VERTEX_MODEL = 'claude-sonnet-4-5@20250929';
const FOUNDATION_MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const SIGNATURE = 'EqQBCkYIBxgCKkB+Zm9v/YmFy+earlier==';

let gateway: TestGateway;
let vertex: FakeServer;
let bedrock: FakeBedrock;

before(async () => {
  [vertex, bedrock, gateway] = await Promise.all([
    startFakeVertexUpstream({ acceptToken: (token) => token === VERTEX_TOKEN }),
    startFakeBedrock({ [ACCESS_KEY_ID]: SECRET }),
    startTestGateway(),
  ]);
});

after(async () => {
  await gateway.close();
  await Promise.all([vertex.close(), bedrock.close()]);
});

const vertexHeaders = () => cloudVertexHeaders(gateway, vertex.origin);
const bedrockHeaders = () => cloudBedrockHeaders(gateway, bedrock.baseUrl, { accessKeyId: ACCESS_KEY_ID, secret: SECRET });
const client = (headers: Record<string, string>, apiKey?: string) => anthropicClient(gateway, headers, apiKey);

/** A count_tokens body with what changes the count: system with cache_control, tools, thinking and a signed turn. */
function countBody(model: string, thinking = true): Anthropic.MessageCountTokensParams {
  return {
    model,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    ...(thinking ? { thinking: { type: 'enabled', budget_tokens: 1024 } } : {}),
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Think first.', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Earlier thought.', signature: SIGNATURE }, { type: 'text', text: 'Done.' }] },
      { role: 'user', content: 'What is the weather in Paris?' },
    ],
  } as Anthropic.MessageCountTokensParams;
}

async function rejectsWith400(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: InstanceType<typeof Anthropic.APIError>) => {
    assert.equal(error.status, 400);
    assert.match(JSON.stringify(error.error), pattern);
    return true;
  });
}

describe('count_tokens on Vertex AI', () => {
  const location = `/v1/projects/${PROJECT}/locations/${REGION}`;

  test('Claude: count-tokens:rawPredict with the Messages body, model kept, the Vertex version added; the count back', async () => {
    const body = countBody(VERTEX_MODEL);
    const { data, response } = await client(vertexHeaders(), VERTEX_TOKEN).messages.countTokens(body, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } }).withResponse();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-gateway-provider'), 'vertex-ai');
    const seen = vertex.requests.at(-1)!;
    assert.equal(`${seen.method} ${seen.url}`, `POST ${location}/publishers/anthropic/models/count-tokens:rawPredict`);
    assert.equal(seen.headers.authorization, `Bearer ${VERTEX_TOKEN}`);
    assert.deepEqual(seen.json, { anthropic_version: 'vertex-2023-10-16', ...body });
    assert.equal(seen.headers['anthropic-beta'], 'context-1m-2025-08-07', 'Vertex reads the beta header');
    assert.equal(seen.headers['anthropic-version'], undefined, 'the version travels in the body');
    assert.deepEqual(data, { input_tokens: vertexTokenCount(seen.json) });
    assert.ok(data.input_tokens > 50, 'the fake counted what it received');
  });

  test('a Gemini model answers 400 naming model, and nothing is sent', async () => {
    const sent = vertex.requests.length;
    await rejectsWith400(client(vertexHeaders(), VERTEX_TOKEN).messages.countTokens(countBody('gemini-2.0-flash')), /"code":"unsupported_route".*"param":"model"|"param":"model".*"code":"unsupported_route"/);
    assert.equal(vertex.requests.length, sent);
  });
});

describe('count_tokens on Bedrock', () => {
  function lastSigned(): BedrockRecordedRequest {
    const last = bedrock.requests.at(-1);
    assert.ok(last?.signedBy, 'the fake Bedrock received a validly signed request');
    return last;
  }

  /** What InvokeModel would get: no model, the Bedrock version, and max_tokens (InvokeModel requires it). */
  function invokeBody(body: Anthropic.MessageCountTokensParams, extra: Record<string, unknown>) {
    const { model: _model, ...rest } = body;
    return { anthropic_version: 'bedrock-2023-05-31', ...rest, ...extra };
  }

  test('Claude through an inference profile: CountTokens on the foundation model, the InvokeModel body base64 inside, signed', async () => {
    const body = countBody(`us.${FOUNDATION_MODEL}`);
    const { data, response } = await client(bedrockHeaders()).messages.countTokens(body, { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07' } }).withResponse();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-gateway-provider'), 'bedrock');
    const seen = lastSigned();
    assert.equal(`${seen.method} ${seen.url}`, `POST /model/${encodeURIComponent(FOUNDATION_MODEL)}/count-tokens`);
    assert.deepEqual(Object.keys(seen.json as object), ['input']);
    const inner = countedInvokeBody(seen.json);
    assert.deepEqual(inner, invokeBody(body, { max_tokens: 1025, anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'] }));
    assert.equal(seen.headers['anthropic-beta'], undefined);
    assert.equal(seen.headers['anthropic-version'], undefined);
    assert.deepEqual(data, { input_tokens: bedrockTokenCount(inner!) });
    assert.ok(data.input_tokens > 50, 'the fake counted what it received');
  });

  test('a foundation-model id as it is; without thinking, the smallest max_tokens', async () => {
    const body = countBody(FOUNDATION_MODEL, false);
    const data = await client(bedrockHeaders()).messages.countTokens(body);
    const seen = lastSigned();
    assert.equal(seen.url, `/model/${encodeURIComponent(FOUNDATION_MODEL)}/count-tokens`);
    const inner = countedInvokeBody(seen.json);
    assert.deepEqual(inner, invokeBody(body, { max_tokens: 1 }));
    assert.deepEqual(data, { input_tokens: bedrockTokenCount(inner!) });
  });

  test('Bedrock\'s own refusal comes back as a 400', async () => {
    const profileArn = `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.${FOUNDATION_MODEL}`;
    await rejectsWith400(client(bedrockHeaders()).messages.countTokens(countBody(profileArn)), /doesn't support counting tokens/);
    assert.equal(lastSigned().url, `/model/${encodeURIComponent(profileArn)}/count-tokens`);
  });

  test('a model that is not Claude answers 400 naming model, and nothing is sent', async () => {
    const sent = bedrock.requests.length;
    await rejectsWith400(client(bedrockHeaders()).messages.countTokens(countBody('amazon.nova-pro-v1:0')), /"code":"unsupported_route".*"param":"model"|"param":"model".*"code":"unsupported_route"/);
    assert.equal(bedrock.requests.length, sent);
  });
});
