/** The planner's inheritance: settings flow down the tree, override_params merge, destinations stay whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plan } from '../../src/routing/planner.ts';
import { config, leaf, mulberry32, alwaysZero, request } from './plan-helpers.ts';

test('settings inherit down the tree unless the child sets them; override_params merge parent under child', () => {
  const planned = plan(
    config({
      provider: 'openai',
      api_key: 'parent-key',
      retry: { attempts: 2, on_status_codes: [429] },
      request_timeout: 3000,
      cache: 'simple',
      override_params: { model: 'gpt-4o', temperature: 0, metadata: { a: 1 } },
      input_guardrails: ['g-in'],
      forward_headers: ['X-Trace'],
      strategy: { mode: 'fallback', on_status_codes: [500] },
      targets: [
        { override_params: { model: 'gpt-4o-mini', metadata: { b: 2 } } },
        {
          retry: { attempts: 5, use_retry_after_header: true },
          request_timeout: 100,
          cache: { mode: 'semantic', max_age: 60, similarity_threshold: 0.9, embedding: { provider: 'openai', model: 'text-embedding-3-small', azure_api_version: 'v' } },
          input_guardrails: [],
        },
        { strategy: { mode: 'single' }, targets: [{ api_key: 'grandchild-key', override_params: { top_p: 1 } }] },
      ],
    }),
    request,
    alwaysZero,
  );
  const [first, second, third] = planned.attempts.map((attempt) => attempt.target);
  assert.equal(first?.provider, 'openai');
  assert.equal(first?.apiKey, 'parent-key');
  assert.deepEqual(first?.overrideParams, { model: 'gpt-4o-mini', temperature: 0, metadata: { b: 2 } });
  assert.deepEqual(first?.retry, { attempts: 2, onStatusCodes: [429], useRetryAfterHeader: false });
  assert.equal(first?.requestTimeoutMs, 3000);
  assert.deepEqual(first?.cache, { mode: 'simple', maxAgeSeconds: undefined, similarityThreshold: undefined, embedding: undefined });
  assert.deepEqual(first?.inputGuardrails, ['g-in']);
  assert.deepEqual(first?.forwardHeaders, ['x-trace']);
  assert.deepEqual(second?.retry, { attempts: 5, onStatusCodes: undefined, useRetryAfterHeader: true });
  assert.equal(second?.requestTimeoutMs, 100);
  assert.deepEqual(second?.cache, {
    mode: 'semantic',
    maxAgeSeconds: 60,
    similarityThreshold: 0.9,
    embedding: { provider: 'openai', model: 'text-embedding-3-small', apiKey: undefined, customHost: undefined, cloud: { 'azure-api-version': 'v' } },
  });
  assert.deepEqual(second?.inputGuardrails, []);
  assert.equal(third?.apiKey, 'grandchild-key');
  assert.equal(third?.provider, 'openai');
  assert.deepEqual(third?.overrideParams, { model: 'gpt-4o', temperature: 0, metadata: { a: 1 }, top_p: 1 });
  assert.equal(planned.attempts[2]?.path, 'config.targets[2].targets[0]');
});

test('the destination is inherited whole or not at all; cloud fields are keyed like x-gateway-* suffixes', () => {
  const planned = plan(
    config({
      provider: 'bedrock',
      aws_access_key_id: 'AKIA',
      aws_secret_access_key: 'secret',
      aws_region: 'us-east-1',
      custom_host: 'https://bedrock-proxy.example.com',
      strategy: { mode: 'fallback' },
      targets: [{ aws_region: 'eu-west-1' }, { provider: 'anthropic', api_key: 'ak' }, { virtual_key: 'vk-1' }],
    }),
    request,
    alwaysZero,
  );
  const [sameProvider, otherProvider, virtualKey] = planned.attempts.map((attempt) => attempt.target);
  assert.equal(sameProvider?.provider, 'bedrock');
  assert.equal(sameProvider?.customHost, 'https://bedrock-proxy.example.com');
  assert.deepEqual(sameProvider?.cloud, { 'aws-access-key-id': 'AKIA', 'aws-secret-access-key': 'secret', 'aws-region': 'eu-west-1' });
  assert.equal(otherProvider?.provider, 'anthropic');
  assert.equal(otherProvider?.apiKey, 'ak');
  assert.equal(otherProvider?.customHost, undefined, "the parent's host is not the child's provider's host");
  assert.deepEqual(otherProvider?.cloud, {}, "the parent's AWS keys never reach another provider");
  assert.equal(virtualKey?.virtualKey, 'vk-1');
  assert.equal(virtualKey?.provider, undefined, 'the virtual key supplies the provider');
  assert.deepEqual(virtualKey?.cloud, {});
});

test('plan is pure: the same config, request and random give the same plan', () => {
  const lb = config({ strategy: { mode: 'loadbalance' }, targets: [leaf('a'), leaf('b'), leaf('c')] });
  const first = plan(lb, request, mulberry32(3));
  const second = plan(lb, request, mulberry32(3));
  assert.deepEqual(first, second);
});
