/**
 * The Vertex AI adapter beyond its fixture pairs (__fixtures__/*.json, replayed by test/providers-contract.test.ts):
 * the base URL from the cloud settings, credentials in prepare(), and answers or streams that are not Vertex's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIXTURE_CLOCK, inferenceCall, providerTarget } from '../../../test/helpers/provider-cases.ts';
import { GatewayError } from '../../core/errors.ts';
import { createVertexAdapter } from './index.ts';

const adapter = createVertexAdapter({ clock: FIXTURE_CLOCK });
const cloud = { 'vertex-project-id': 'my-project', 'vertex-region': 'us-central1' };
const target = providerTarget('vertex-ai', adapter.baseUrlFor!(cloud), { apiKey: 'ya29.token', cloud });

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

describe('vertex-ai: prepare (credentials)', () => {
  test('a bearer access token is used as it is', async () => {
    const request = adapter.buildRequest(inferenceCall('chat', { model: 'gemini-2.0-flash', messages: [] }), target);
    const prepared = await adapter.prepare!(request, target);
    assert.equal(prepared.headers.authorization, 'Bearer ya29.token');
    assert.equal(prepared.headers['content-type'], 'application/json');
  });

  test('no credentials at all is a 400 that says what to send', async () => {
    const request = adapter.buildRequest(inferenceCall('chat', { model: 'gemini-2.0-flash', messages: [] }), target);
    await assert.rejects(adapter.prepare!(request, { ...target, apiKey: undefined }), is400For('authorization'));
  });
});

test('a rerank answer without records throws', () => {
  const call = inferenceCall('rerank', { model: 'semantic-ranker-default@latest', query: 'q', documents: ['a'] });
  assert.throws(() => adapter.responseTransform('rerank')!({ nope: 1 }, call, target), /no records/);
});

test('a Claude call gets a decoder only when streamed', () => {
  const body = { model: 'claude-sonnet-4-5@20250929', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 };
  assert.equal(adapter.streamDecoder!(inferenceCall('chat', body), target), undefined);
  assert.ok(adapter.streamDecoder!(inferenceCall('chat', { ...body, stream: true }), target));
});
