/**
 * The Azure OpenAI adapter beyond its fixture pairs (__fixtures__/*.json, replayed by
 * test/providers-contract.test.ts): the client's bytes kept (the same buffer) where nothing changes, answers that
 * are not Azure answers, which calls get a decoder, and the capabilities.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { azureOpenAiAdapter as adapter } from './index.ts';

const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const target = (cloud: Record<string, string>) => providerTarget('azure-openai', 'https://contoso.openai.azure.com/openai', { apiKey: 'azure-key', cloud });

describe('azure-openai: request bodies pass as the client sent them', () => {
  test('on the deployment path', () => {
    const input = inferenceCall('chat', chat);
    const built = adapter.buildRequest(input, target({ 'azure-deployment-id': 'd' }));
    assert.equal(built.body, input.rawBody);
    assert.deepEqual(built.warnings, []);
  });

  test('on the v1 API when the body already names the deployment, or no deployment is given', () => {
    const same = inferenceCall('chat', { model: 'gpt4o-prod', messages: [] });
    assert.equal(adapter.buildRequest(same, target({ 'azure-api-version': 'v1', 'azure-deployment-id': 'gpt4o-prod' })).body, same.rawBody);
    const noHeader = inferenceCall('chat', chat);
    assert.equal(adapter.buildRequest(noHeader, target({ 'azure-api-version': 'v1' })).body, noHeader.rawBody);
  });
});

test('an answer without choices (or data) is refused (the core answers 502)', () => {
  assert.throws(() => adapter.responseTransform('chat')!({ nope: 1 }, inferenceCall('chat', chat), target({})), /no choices array/);
  assert.throws(() => adapter.responseTransform('embeddings')!([], inferenceCall('embeddings', { model: 'm', input: 'x' }), target({})), /no data array/);
});

test('no decoder for answers that are not streams, nor for embeddings', () => {
  assert.equal(adapter.streamDecoder!(inferenceCall('chat', chat), target({})), undefined);
  assert.equal(adapter.streamDecoder!(inferenceCall('embeddings', { model: 'm', input: 'x', stream: true }), target({})), undefined);
});

test('capabilities: chat, completions, embeddings and pass-through, SSE', () => {
  assert.deepEqual([...adapter.capabilities.routes].sort(), ['chat', 'completions', 'embeddings', 'passthrough']);
  assert.equal(adapter.capabilities.framing, 'sse');
  assert.equal(adapter.defaultBaseUrl, undefined);
});
