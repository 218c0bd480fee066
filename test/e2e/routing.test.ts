/**
 * Routing configs end to end: fallback, loadbalance, conditional, nesting, retries with backoff and retry-after,
 * timeouts, override_params and config credentials, against a fake upstream that fails, slows down and counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

/** A target on the fake upstream answering as `model` says. */
const to = (model: string, extra: Record<string, unknown> = {}) => ({ provider: 'openai', custom_host: upstream.baseUrl, override_params: { model }, ...extra });

function client(config: unknown, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    apiKey: 'sk-client',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config), ...headers },
  });
}

async function chat(config: unknown, headers: Record<string, string> = {}) {
  return client(config, headers).chat.completions.create({ model: 'requested', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
}

function modelsSeen(since: number): string[] {
  return upstream.requests.slice(since).map((request) => (request.json as { model: string }).model);
}

describe('fallback', () => {
  test('moves on from a failing target to the next; the answer says which target answered', async () => {
    const since = upstream.requests.length;
    const { data, response } = await chat({ strategy: { mode: 'fallback' }, targets: [to('error-503'), to('good')] });
    assert.equal(data.model, 'good');
    assert.deepEqual(modelsSeen(since), ['error-503', 'good']);
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
    assert.equal(response.headers.get('x-gateway-provider'), 'openai');
  });

  test('on_status_codes: a status outside the list is returned, not fallen back from', async () => {
    const since = upstream.requests.length;
    await assert.rejects(chat({ strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [to('error-500'), to('good')] }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 500);
    assert.deepEqual(modelsSeen(since), ['error-500']);
  });

  test('a timeout (request_timeout) moves on too', async () => {
    const since = upstream.requests.length;
    const { data } = await chat({ strategy: { mode: 'fallback' }, targets: [to('slow-5000', { request_timeout: 200 }), to('good')] });
    assert.equal(data.model, 'good');
    assert.deepEqual(modelsSeen(since), ['slow-5000', 'good']);
  });

  test('every target failing: the last provider error comes back with its status', async () => {
    await assert.rejects(chat({ strategy: { mode: 'fallback' }, targets: [to('error-503'), to('error-502')] }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 502);
  });

  test('a stream falls back before it starts, then streams from the target that answered', async () => {
    const since = upstream.requests.length;
    const stream = await client({ strategy: { mode: 'fallback' }, targets: [to('error-503'), to('good')] }).chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const part of stream) text += part.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Hello world');
    assert.deepEqual(modelsSeen(since), ['error-503', 'good']);
  });
});

describe('retries', () => {
  test('retries a retryable status with backoff until it succeeds; the count is reported', async () => {
    const since = upstream.requests.length;
    const { response } = await chat({ ...to('flaky-2-retry-a'), retry: { attempts: 3 } });
    assert.equal(response.headers.get('x-gateway-retry-attempt-count'), '2');
    assert.equal(upstream.requests.length - since, 3);
  });

  test('stops after `attempts` retries and returns the provider error', async () => {
    const since = upstream.requests.length;
    await assert.rejects(chat({ ...to('error-503'), retry: { attempts: 2 } }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 503);
    assert.equal(upstream.requests.length - since, 3);
  });

  test('a status outside retry.on_status_codes is not retried', async () => {
    const since = upstream.requests.length;
    await assert.rejects(chat({ ...to('error-500'), retry: { attempts: 3, on_status_codes: [429] } }));
    assert.equal(upstream.requests.length - since, 1);
  });

  test('use_retry_after_header waits as long as the provider asks', async () => {
    const started = performance.now();
    const since = upstream.requests.length;
    await assert.rejects(chat({ ...to('ratelimited-400'), retry: { attempts: 1, use_retry_after_header: true } }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 429);
    assert.equal(upstream.requests.length - since, 2);
    assert.ok(performance.now() - started >= 390, 'the retry waited for retry-after-ms');
  });

  test('retries, then falls back', async () => {
    const since = upstream.requests.length;
    const { data } = await chat({ strategy: { mode: 'fallback' }, targets: [to('error-503', { retry: { attempts: 1 } }), to('good')] });
    assert.equal(data.model, 'good');
    assert.deepEqual(modelsSeen(since), ['error-503', 'error-503', 'good']);
  });
});

describe('loadbalance, conditional, nesting, credentials', () => {
  test('loadbalance never picks a zero weight and sends one request per call', async () => {
    for (let i = 0; i < 8; i += 1) {
      const since = upstream.requests.length;
      const { response } = await chat({ strategy: { mode: 'loadbalance' }, targets: [to('zero', { weight: 0 }), to('one', { weight: 1 })] });
      assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
      assert.deepEqual(modelsSeen(since), ['one']);
    }
  });

  test('conditional routes on metadata, with a default', async () => {
    const config = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.user_plan': { $eq: 'pro' } }, then: 'pro' }], default: 'free' },
      targets: [to('pro-model', { name: 'pro' }), to('free-model', { name: 'free' })],
    };
    const pro = await chat(config, { 'x-gateway-metadata': JSON.stringify({ user_plan: 'pro' }) });
    assert.equal(pro.data.model, 'pro-model');
    const free = await chat(config, { 'x-gateway-metadata': JSON.stringify({ user_plan: 'basic' }) });
    assert.equal(free.data.model, 'free-model');
  });

  test('a loadbalance of fallbacks: the inner fallback rescues the drawn target', async () => {
    const config = { strategy: { mode: 'loadbalance' }, targets: [{ strategy: { mode: 'fallback' }, targets: [to('error-503'), to('rescued')] }] };
    const { data, response } = await chat(config);
    assert.equal(data.model, 'rescued');
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[0].targets[1]');
  });

  test('a config carries the provider credential; the client Authorization is not used then', async () => {
    await chat({ provider: 'openai', api_key: 'sk-from-config', custom_host: upstream.baseUrl });
    assert.equal(upstream.requests.at(-1)?.headers.authorization, 'Bearer sk-from-config');
  });

  test('override_params merge into the request body', async () => {
    await chat({ ...to('overridden'), override_params: { model: 'overridden', temperature: 0.1 } });
    const body = upstream.requests.at(-1)?.json as Record<string, unknown>;
    assert.equal(body.model, 'overridden');
    assert.equal(body.temperature, 0.1);
    assert.deepEqual(body.messages, [{ role: 'user', content: 'hi' }]);
  });

  test('x-gateway-request-timeout wins over the config request_timeout', async () => {
    await assert.rejects(
      chat({ ...to('slow-3000'), request_timeout: 60_000 }, { 'x-gateway-request-timeout': '150' }),
      (error: unknown) => error instanceof OpenAI.APIError && error.status === 408,
    );
  });

  test('config custom hosts go through the SSRF guard', async () => {
    await assert.rejects(chat({ provider: 'openai', custom_host: 'http://169.254.169.254/latest' }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 400);
  });
});

test('GET /models: a config with fetch_integrated_models answers the catalog; without it the provider is asked', async () => {
  const since = upstream.requests.length;
  const catalog = await client({ provider: 'openai', custom_host: upstream.baseUrl, fetch_integrated_models: true }).models.list();
  assert.ok(catalog.data.length >= 50);
  assert.equal(upstream.requests.length, since);
  const proxied = await client({ provider: 'openai', custom_host: upstream.baseUrl }).models.list();
  assert.deepEqual(proxied.data.map((model) => model.id), ['upstream-model-1']);
});
