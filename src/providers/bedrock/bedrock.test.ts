/**
 * The Bedrock adapter beyond its fixture pairs (__fixtures__/*.json, replayed by test/providers-contract.test.ts):
 * region and credential rules, where rerank goes, the finish reason table, base64 embeddings, and answers that are
 * not Converse answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIXTURE_CLOCK, inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { fixtureCase } from '../../../test/helpers/provider-fixtures.ts';
import { GatewayError } from '../../core/errors.ts';
import type { ProviderTarget } from '../contract.ts';
import { createBedrockAdapter } from './index.ts';

const adapter = createBedrockAdapter({ clock: FIXTURE_CLOCK });

const AWS = { 'aws-region': 'us-west-2', 'aws-access-key-id': 'AKIDEXAMPLE', 'aws-secret-access-key': 'secret' };
const bedrockTarget = (cloud: Record<string, string> = {}, extra: Partial<ProviderTarget> = {}) =>
  providerTarget('bedrock', 'https://bedrock-runtime.us-west-2.amazonaws.com', { cloud: { ...AWS, ...cloud }, ...extra });

function rejects400(run: () => unknown, param: string): void {
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === param);
}

describe('Bedrock settings: region, host, credentials', () => {
  test('baseUrlFor builds the regional runtime host; a missing region is a 400 naming the header', () => {
    assert.equal(adapter.baseUrlFor?.({ 'aws-region': 'eu-central-1' }), 'https://bedrock-runtime.eu-central-1.amazonaws.com');
    rejects400(() => adapter.baseUrlFor?.({}), 'x-gateway-aws-region');
    rejects400(() => adapter.baseUrlFor?.({ 'aws-region': 'evil.com/x' }), 'x-gateway-aws-region');
  });

  test('missing credentials are 400s naming the header; the bearer token may be the access key id', () => {
    const call = inferenceCall('chat', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    rejects400(() => adapter.buildRequest(call, bedrockTarget({ 'aws-secret-access-key': '' })), 'x-gateway-aws-secret-access-key');
    rejects400(() => adapter.buildRequest(call, bedrockTarget({ 'aws-access-key-id': '' })), 'x-gateway-aws-access-key-id');
    const { 'aws-access-key-id': _id, ...cloud } = bedrockTarget().cloud;
    assert.doesNotThrow(() => adapter.buildRequest(call, { ...bedrockTarget(), cloud, apiKey: 'AKIDFROMBEARER' }));
  });

  test('rerank goes to the agent-runtime host, or to the custom host when one is given', () => {
    const call = inferenceCall('rerank', fixtureCase('bedrock/rerank.json', 'chain: Agent Runtime rerank in the region').request);
    assert.equal(adapter.buildRequest(call, bedrockTarget()).url, 'https://bedrock-agent-runtime.us-west-2.amazonaws.com/rerank');
    const custom = bedrockTarget({}, { baseUrl: 'http://127.0.0.1:9000/bedrock', customHost: true });
    assert.equal(adapter.buildRequest(call, custom).url, 'http://127.0.0.1:9000/bedrock/rerank');
  });
});

describe('Bedrock answers -> OpenAI answers', () => {
  test('an answer without output is garbage', () => {
    assert.throws(() => adapter.responseTransform('chat')?.({ nope: 1 }, inferenceCall('chat', { model: 'm', messages: [] }), bedrockTarget()), /output/);
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
      const out = adapter.responseTransform('chat')?.(json, inferenceCall('chat', { model: 'm', messages: [] }), bedrockTarget()) as {
        choices: Array<{ finish_reason: string; native_finish_reason: string }>;
      };
      assert.equal(out.choices[0]?.finish_reason, mapped, raw);
      assert.equal(out.choices[0]?.native_finish_reason, raw);
    }
  });

  test('encoding_format base64 answers little-endian float32, as OpenAI does', () => {
    const pair = fixtureCase('bedrock/embeddings-titan.json', 'chain: InvokeModel body and the embedding list');
    const call = inferenceCall('embeddings', { ...(pair.request as object), encoding_format: 'base64' });
    const out = adapter.responseTransform('embeddings')?.(pair.upstreamResponse?.body, call, bedrockTarget()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(out.data[0]!.embedding, 'base64');
    assert.deepEqual(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)), [0.5, -0.25, 0.125]);
  });

  test('rerank leaves the documents out unless asked', () => {
    const pair = fixtureCase('bedrock/rerank.json', 'chain: Agent Runtime rerank in the region');
    const call = inferenceCall('rerank', { ...(pair.request as object), return_documents: false });
    const bare = adapter.responseTransform('rerank')?.(pair.upstreamResponse?.body, call, bedrockTarget());
    assert.ok((bare as { results: Array<Record<string, unknown>> }).results.every((result) => !('document' in result)));
  });
});
