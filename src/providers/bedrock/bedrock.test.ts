import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from '../../core/errors.ts';
import { bedrockCall, bedrockTarget, loadFixture as fixture } from './__fixtures__/support.ts';
import { createBedrockAdapter } from './index.ts';

const deps = { now: () => 1_700_000_000_000, newId: () => 'fixed-id' };
const adapter = createBedrockAdapter({ clock: deps });

function rejects400(run: () => unknown, param: string): void {
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === param);
}

describe('Bedrock chat: request in -> Converse request', () => {
  test('system/developer, images, parallel tool calls, merged tool results, tools, cache points, inference config (fixture)', () => {
    const data = fixture('chat-request');
    const built = adapter.buildRequest(bedrockCall('chat', data.call), bedrockTarget());
    assert.equal(built.method, 'POST');
    assert.equal(new URL(built.url).pathname, data.expectedUrlPath);
    assert.equal(built.headers['content-type'], 'application/json');
    assert.equal(built.headers.accept, 'application/vnd.amazon.eventstream');
    assert.deepEqual(JSON.parse(String(built.body)), data.expectedBody);
    assert.deepEqual(built.warnings, data.expectedWarnings);
  });

  test('non-streaming goes to /converse; an inference-profile ARN is one encoded path segment', () => {
    const model = 'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-3-haiku-20240307-v1:0';
    const built = adapter.buildRequest(bedrockCall('chat', { model, messages: [{ role: 'user', content: 'Hi' }] }), bedrockTarget());
    assert.equal(
      built.url,
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-haiku-20240307-v1%3A0/converse',
    );
    assert.deepEqual(JSON.parse(String(built.body)), { messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
    assert.deepEqual(built.warnings, []);
  });

  test('tool_choice: none drops the tools with a warning; a named function becomes {tool: {name}}', () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    const base = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools };
    const none = adapter.buildRequest(bedrockCall('chat', { ...base, tool_choice: 'none' }), bedrockTarget());
    assert.equal(JSON.parse(String(none.body)).toolConfig, undefined);
    assert.match(none.warnings.join(), /tool_choice "none"/);
    const named = adapter.buildRequest(bedrockCall('chat', { ...base, tool_choice: { type: 'function', function: { name: 'f' } } }), bedrockTarget());
    assert.deepEqual(JSON.parse(String(named.body)).toolConfig.toolChoice, { tool: { name: 'f' } });
    const auto = adapter.buildRequest(bedrockCall('chat', { ...base, tool_choice: 'auto', max_tokens: 9, n: 2 }), bedrockTarget());
    const body = JSON.parse(String(auto.body));
    assert.deepEqual(body.toolConfig.toolChoice, { auto: {} });
    assert.deepEqual(body.inferenceConfig, { maxTokens: 9 });
    assert.deepEqual(auto.warnings, ['n is not supported by Bedrock and was ignored']);
  });

  test('thinking is sent only when strict compliance is off; earlier thinking blocks go back before the text', () => {
    const data = fixture('chat-response-reasoning');
    const loose = adapter.buildRequest(bedrockCall('chat', data.call, { strictReferenceCompliance: false }), bedrockTarget());
    assert.deepEqual(JSON.parse(String(loose.body)), data.expectedBody);
    const strict = adapter.buildRequest(bedrockCall('chat', data.call), bedrockTarget());
    assert.equal(JSON.parse(String(strict.body)).additionalModelRequestFields, undefined);
    assert.match(strict.warnings.join(), /thinking/);

    const history = {
      model: 'm',
      messages: [
        { role: 'user', content: 'Q' },
        { role: 'assistant', content: 'A', content_blocks: [{ type: 'thinking', thinking: 'T', signature: 'S' }, { type: 'redacted_thinking', data: 'R' }] },
        { role: 'user', content: 'Q2' },
      ],
    };
    const built = adapter.buildRequest(bedrockCall('chat', history, { strictReferenceCompliance: false }), bedrockTarget());
    assert.deepEqual(JSON.parse(String(built.body)).messages[1].content, [
      { reasoningContent: { reasoningText: { text: 'T', signature: 'S' } } },
      { reasoningContent: { redactedContent: 'R' } },
      { text: 'A' },
    ]);
  });

  test('unsendable input is a 400 naming the field', () => {
    const link = { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] };
    rejects400(() => adapter.buildRequest(bedrockCall('chat', { model: 'm', messages: [link] }), bedrockTarget()), 'messages[0].content[0]');
    const badArgs = { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{oops' } }] };
    rejects400(
      () => adapter.buildRequest(bedrockCall('chat', { model: 'm', messages: [{ role: 'user', content: 'x' }, badArgs] }), bedrockTarget()),
      'messages[1].tool_calls[0].function.arguments',
    );
    rejects400(() => adapter.buildRequest(bedrockCall('chat', { model: 'm', messages: [{ role: 'system', content: 'only' }] }), bedrockTarget()), 'messages');
  });
});

describe('Bedrock settings: region, host, credentials', () => {
  test('baseUrlFor builds the regional runtime host; a missing region is a 400 naming the header', () => {
    assert.equal(adapter.baseUrlFor?.({ 'aws-region': 'eu-central-1' }), 'https://bedrock-runtime.eu-central-1.amazonaws.com');
    rejects400(() => adapter.baseUrlFor?.({}), 'x-gateway-aws-region');
    rejects400(() => adapter.baseUrlFor?.({ 'aws-region': 'evil.com/x' }), 'x-gateway-aws-region');
  });

  test('missing credentials are 400s naming the header; the bearer token may be the access key id', () => {
    const call = bedrockCall('chat', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    rejects400(() => adapter.buildRequest(call, bedrockTarget({ 'aws-secret-access-key': '' })), 'x-gateway-aws-secret-access-key');
    rejects400(() => adapter.buildRequest(call, bedrockTarget({ 'aws-access-key-id': '' })), 'x-gateway-aws-access-key-id');
    const { 'aws-access-key-id': _id, ...cloud } = bedrockTarget().cloud;
    assert.doesNotThrow(() => adapter.buildRequest(call, { ...bedrockTarget(), cloud, apiKey: 'AKIDFROMBEARER' }));
  });

  test('rerank goes to the agent-runtime host, or to the custom host when one is given', () => {
    const data = fixture('rerank');
    assert.equal(adapter.buildRequest(bedrockCall('rerank', data.call), bedrockTarget()).url, 'https://bedrock-agent-runtime.us-west-2.amazonaws.com/rerank');
    const custom = bedrockTarget({}, { baseUrl: 'http://127.0.0.1:9000/bedrock', customHost: true });
    assert.equal(adapter.buildRequest(bedrockCall('rerank', data.call), custom).url, 'http://127.0.0.1:9000/bedrock/rerank');
  });
});

describe('Bedrock answers -> OpenAI answers', () => {
  for (const name of ['chat-response-tools', 'chat-response-reasoning']) {
    test(`${name} (fixture)`, () => {
      const data = fixture(name);
      const call = bedrockCall('chat', data.call, { strictReferenceCompliance: data.strictReferenceCompliance !== false });
      const transform = adapter.responseTransform('chat');
      assert.deepEqual(transform?.(data.providerResponse, call, bedrockTarget()), data.expected);
    });
  }

  test('reasoning stays out of a strict answer; an answer without output is garbage', () => {
    const data = fixture('chat-response-reasoning');
    const out = adapter.responseTransform('chat')?.(data.providerResponse, bedrockCall('chat', data.call), bedrockTarget()) as {
      choices: Array<{ message: Record<string, unknown> }>;
    };
    assert.equal(out.choices[0]?.message.content_blocks, undefined);
    assert.equal(out.choices[0]?.message.content, '391');
    assert.throws(() => adapter.responseTransform('chat')?.({ nope: 1 }, bedrockCall('chat', data.call), bedrockTarget()), /output/);
  });

  test('stop reasons map to OpenAI finish reasons, the raw value kept', () => {
    const cases: Array<[string, string]> = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['tool_use', 'tool_calls'],
      ['guardrail_intervened', 'content_filter'],
      ['content_filtered', 'content_filter'],
    ];
    for (const [raw, mapped] of cases) {
      const json = { output: { message: { role: 'assistant', content: [{ text: 'x' }] } }, stopReason: raw, usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } };
      const out = adapter.responseTransform('chat')?.(json, bedrockCall('chat', { model: 'm' }), bedrockTarget()) as {
        choices: Array<{ finish_reason: string; native_finish_reason: string }>;
      };
      assert.equal(out.choices[0]?.finish_reason, mapped, raw);
      assert.equal(out.choices[0]?.native_finish_reason, raw);
    }
  });

  test('provider errors keep the message; the type follows the status', () => {
    assert.deepEqual(adapter.parseError?.(400, { message: 'Malformed input request' }), { message: 'Malformed input request', type: 'invalid_request_error' });
    assert.deepEqual(adapter.parseError?.(429, { Message: 'Too many requests' }), { message: 'Too many requests', type: 'rate_limit_error' });
    assert.equal(adapter.parseError?.(500, {}), undefined);
  });
});

describe('Bedrock embeddings and rerank (fixtures)', () => {
  for (const name of ['embeddings-titan', 'embeddings-cohere']) {
    test(name, () => {
      const data = fixture(name);
      const call = bedrockCall('embeddings', data.call);
      const built = adapter.buildRequest(call, bedrockTarget());
      assert.equal(new URL(built.url).pathname, data.expectedUrlPath);
      assert.deepEqual(JSON.parse(String(built.body)), data.expectedBody);
      assert.deepEqual(adapter.responseTransform('embeddings')?.(data.providerResponse, call, bedrockTarget()), data.expected);
    });
  }

  test('Titan takes one input per call; token arrays and unknown model families are refused', () => {
    rejects400(() => adapter.buildRequest(bedrockCall('embeddings', { model: 'amazon.titan-embed-text-v2:0', input: ['a', 'b'] }), bedrockTarget()), 'input');
    rejects400(() => adapter.buildRequest(bedrockCall('embeddings', { model: 'cohere.embed-english-v3', input: [1, 2] }), bedrockTarget()), 'input');
    rejects400(() => adapter.buildRequest(bedrockCall('embeddings', { model: 'meta.llama3', input: 'a' }), bedrockTarget()), 'model');
    const v1 = adapter.buildRequest(bedrockCall('embeddings', { model: 'amazon.titan-embed-text-v1', input: 'a', dimensions: 8 }), bedrockTarget());
    assert.deepEqual(JSON.parse(String(v1.body)), { inputText: 'a' });
    assert.equal(v1.warnings.length, 1);
  });

  test('encoding_format base64 answers little-endian float32, as OpenAI does', () => {
    const data = fixture('embeddings-titan');
    const call = bedrockCall('embeddings', { ...data.call, encoding_format: 'base64' });
    const out = adapter.responseTransform('embeddings')?.(data.providerResponse, call, bedrockTarget()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(out.data[0]!.embedding, 'base64');
    assert.deepEqual(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)), [0.5, -0.25, 0.125]);
  });

  test('rerank', () => {
    const data = fixture('rerank');
    const call = bedrockCall('rerank', data.call);
    const built = adapter.buildRequest(call, bedrockTarget({ 'aws-region': String(data.region) }));
    assert.deepEqual(JSON.parse(String(built.body)), data.expectedBody);
    assert.deepEqual(adapter.responseTransform('rerank')?.(data.providerResponse, call, bedrockTarget()), data.expected);
    const bare = adapter.responseTransform('rerank')?.(data.providerResponse, bedrockCall('rerank', { ...data.call, return_documents: false }), bedrockTarget());
    assert.ok((bare as { results: Array<Record<string, unknown>> }).results.every((result) => !('document' in result)));
  });
});
