/**
 * Guardrail verdicts as routing statuses: 446 (a deny) and 246 (a failure without deny) retried and fallen back
 * from like provider statuses, proven by the calls the fake upstream counts. The fake always answers
 * "Hello world", so a check on "world" fails every answer of a target that has it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
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

const to = (model: string, extra: Record<string, unknown> = {}) => ({ provider: 'openai', custom_host: upstream.baseUrl, override_params: { model }, ...extra });
const noWorld = (deny: boolean) => ({ 'default.contains': { operator: 'none', words: ['world'] }, deny });
const noSecret = { 'default.contains': { operator: 'none', words: ['secret'] }, deny: true };

function client(config: unknown): OpenAI {
  return new OpenAI({
    apiKey: 'sk-client',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config) },
  });
}

async function chat(config: unknown, content = 'hi') {
  return client(config).chat.completions.create({ model: 'requested', messages: [{ role: 'user', content }] }).withResponse();
}

/** The raw answer, for statuses the openai client turns into exceptions. */
async function raw(config: unknown, content = 'hi', stream = false) {
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json', authorization: 'Bearer sk-x' },
    body: JSON.stringify({ model: 'requested', messages: [{ role: 'user', content }], stream }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text };
}

function modelsSeen(since: number): string[] {
  return upstream.requests.slice(since).map((recorded) => (recorded.json as { model: string }).model);
}

describe('output guardrails and fallback', () => {
  test('an answer denied by its target\'s output guardrail (446) falls back to the next target', async () => {
    const since = upstream.requests.length;
    const { data, response } = await chat({
      strategy: { mode: 'fallback' },
      targets: [to('first', { output_guardrails: [noWorld(true)] }), to('second')],
    });
    assert.equal(data.model, 'second');
    assert.deepEqual(modelsSeen(since), ['first', 'second']);
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
  });

  test('a failure without deny (246) falls back only when on_status_codes names 246', async () => {
    let since = upstream.requests.length;
    const moved = await chat({
      strategy: { mode: 'fallback', on_status_codes: [246, 500] },
      targets: [to('first', { output_guardrails: [noWorld(false)] }), to('second')],
    });
    assert.equal(moved.data.model, 'second');
    assert.deepEqual(modelsSeen(since), ['first', 'second']);

    since = upstream.requests.length;
    const kept = await chat({
      strategy: { mode: 'fallback' },
      targets: [to('first', { output_guardrails: [noWorld(false)] }), to('second')],
    });
    assert.equal(kept.data.model, 'first', 'without 246 in the list the answer stands');
    assert.equal(kept.response.status, 200);
    assert.equal(kept.response.headers.get('x-gateway-guardrails'), 'failed');
    assert.deepEqual(modelsSeen(since), ['first']);
    const hooks = (kept.data as unknown as { hook_results: { after_request_hooks: Array<{ verdict: boolean }> } }).hook_results;
    assert.equal(hooks.after_request_hooks[0]!.verdict, false, 'the verdicts were computed once and reported');
  });

  test('when every target is denied, the last denial is answered: 446 with its verdicts', async () => {
    const since = upstream.requests.length;
    const result = await raw({ strategy: { mode: 'fallback' }, output_guardrails: [noWorld(true)], targets: [to('first'), to('second')] });
    assert.equal(result.status, 446);
    assert.deepEqual(modelsSeen(since), ['first', 'second']);
    const body = JSON.parse(result.text);
    assert.equal(body.error.code, 'output_guardrail_denied');
    assert.equal(body.hook_results.after_request_hooks[0].verdict, false);
    assert.doesNotMatch(result.text, /Hello world/, 'a denied answer is never sent');
  });

  test('a passing answer is read once and sent as the provider wrote it', async () => {
    const since = upstream.requests.length;
    const { data, response } = await chat({ strategy: { mode: 'fallback' }, targets: [to('first', { output_guardrails: [noSecret] }), to('second')] });
    assert.equal(data.choices[0]!.message.content, 'Hello world');
    assert.equal(response.headers.get('x-gateway-guardrails'), 'passed');
    assert.deepEqual(modelsSeen(since), ['first']);
  });
});

describe('output guardrails and retries', () => {
  test('retry.on_status_codes naming 246 asks again, then answers with the verdicts', async () => {
    const since = upstream.requests.length;
    const { data, response } = await chat({ ...to('again'), retry: { attempts: 2, on_status_codes: [246] }, output_guardrails: [noWorld(false)] });
    assert.equal(data.model, 'again');
    assert.deepEqual(modelsSeen(since), ['again', 'again', 'again']);
    assert.equal(response.headers.get('x-gateway-retry-attempt-count'), '2');
    assert.equal(response.headers.get('x-gateway-guardrails'), 'failed');
  });

  test('retry.on_status_codes naming 446 retries a denied answer; the default retry statuses do not', async () => {
    let since = upstream.requests.length;
    const retried = await raw({ ...to('denied'), retry: { attempts: 1, on_status_codes: [446] }, output_guardrails: [noWorld(true)] });
    assert.equal(retried.status, 446);
    assert.equal(retried.headers['x-gateway-retry-attempt-count'], '1');
    assert.deepEqual(modelsSeen(since), ['denied', 'denied']);

    since = upstream.requests.length;
    const once = await raw({ ...to('denied'), retry: { attempts: 3 }, output_guardrails: [noWorld(true)] });
    assert.equal(once.status, 446);
    assert.deepEqual(modelsSeen(since), ['denied']);
  });
});

describe('input guardrails and fallback', () => {
  test('a target whose input guardrail denies is skipped without a provider call', async () => {
    const since = upstream.requests.length;
    const { data, response } = await chat(
      { strategy: { mode: 'fallback' }, targets: [to('strict', { input_guardrails: [noSecret] }), to('lenient')] },
      'a secret question',
    );
    assert.equal(data.model, 'lenient');
    assert.deepEqual(modelsSeen(since), ['lenient'], 'the denied target was never called');
    assert.equal(response.headers.get('x-gateway-last-used-option-index'), 'config.targets[1]');
  });

  test('a fallback whose on_status_codes leaves 446 out answers the denial, with no provider call', async () => {
    const since = upstream.requests.length;
    const result = await raw(
      { strategy: { mode: 'fallback', on_status_codes: [500] }, targets: [to('strict', { input_guardrails: [noSecret] }), to('lenient')] },
      'a secret question',
    );
    assert.equal(result.status, 446);
    assert.equal(JSON.parse(result.text).error.code, 'input_guardrail_denied');
    assert.deepEqual(modelsSeen(since), []);
  });

  test('an input denial is not retried: its verdict cannot change', async () => {
    const since = upstream.requests.length;
    const result = await raw({ ...to('strict'), retry: { attempts: 3, on_status_codes: [446] }, input_guardrails: [noSecret] }, 'a secret question');
    assert.equal(result.status, 446);
    assert.deepEqual(modelsSeen(since), []);
  });
});

test('a stream is judged after it has reached the client: no retry and no fallback, a deny ends it with an error event', async () => {
  const since = upstream.requests.length;
  const result = await raw({ strategy: { mode: 'fallback' }, targets: [to('first', { output_guardrails: [noWorld(true)] }), to('second')] }, 'hi', true);
  assert.equal(result.status, 200);
  assert.match(result.text, /output_guardrail_denied/);
  assert.doesNotMatch(result.text, /\[DONE\]/);
  assert.deepEqual(modelsSeen(since), ['first']);
});
