/** Guardrails in the pipeline: input deny before any provider call, redaction, output checks on answers and streams. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
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

const target = () => ({ provider: 'openai', custom_host: upstream.baseUrl });
const denyWord = (word: string) => ({ 'default.contains': { operator: 'none', words: [word] }, deny: true });

async function chat(config: unknown, content: string, stream = false) {
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json', authorization: 'Bearer sk-x' },
    body: JSON.stringify({ model: 'good', messages: [{ role: 'user', content }], stream }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, any> };
}

test('an input guardrail that denies stops the request before any provider call: 446 with the verdicts', async () => {
  const before = upstream.requests.length;
  const result = await chat({ ...target(), input_guardrails: [denyWord('forbidden')] }, 'this is forbidden');
  assert.equal(result.status, 446);
  const body = result.json();
  assert.equal(body.error.type, 'guardrail_error');
  assert.equal(body.hook_results.before_request_hooks[0].verdict, false);
  assert.equal(body.hook_results.before_request_hooks[0].checks[0].id, 'default.contains');
  assert.equal(upstream.requests.length, before, 'no provider call was made');
});

test('a failing guardrail without deny lets the request through and reports the verdict', async () => {
  const result = await chat({ ...target(), input_guardrails: [{ 'default.contains': { operator: 'none', words: ['hello'] } }] }, 'hello there');
  assert.equal(result.status, 200);
  assert.equal(result.headers['x-gateway-guardrails'], 'failed');
  assert.equal(result.json().hook_results.before_request_hooks[0].verdict, false);
  assert.equal(result.json().choices[0].message.content, 'Hello world');
});

test('PII is redacted before the request reaches the provider', async () => {
  const result = await chat({ ...target(), input_guardrails: [{ 'gateway.pii': { redact: true } }] }, 'mail me at jane.doe@example.com please');
  assert.equal(result.status, 200);
  const sent = upstream.requests.at(-1)?.json as { messages: Array<{ content: string }> };
  assert.doesNotMatch(sent.messages[0]!.content, /jane\.doe@example\.com/);
  assert.match(sent.messages[0]!.content, /\[REDACTED_EMAIL_ADDRESS\]/);
});

test('an output guardrail denies a JSON answer: 446, the answer is not sent', async () => {
  const result = await chat({ ...target(), output_guardrails: [denyWord('world')] }, 'hi');
  assert.equal(result.status, 446);
  assert.doesNotMatch(result.text, /Hello world/);
  assert.equal(result.json().hook_results.after_request_hooks[0].verdict, false);
});

test('an output guardrail on a stream: a deny ends it with an error event instead of [DONE]', async () => {
  const denied = await chat({ ...target(), output_guardrails: [denyWord('world')] }, 'hi', true);
  assert.equal(denied.status, 200);
  const events = denied.text.trim().split('\n\n');
  assert.match(events[0]!, /chat\.completion\.chunk/);
  assert.doesNotMatch(denied.text, /\[DONE\]/);
  assert.match(events.at(-1)!, /output_guardrail_denied/);

  const passed = await chat({ ...target(), output_guardrails: [denyWord('goodbye')] }, 'hi', true);
  assert.ok(passed.text.trim().endsWith('data: [DONE]'));
  assert.match(passed.text, /Hello/);
});

test('a guardrail with invalid parameters is a 400 naming the check parameter', async () => {
  const result = await chat({ ...target(), input_guardrails: [{ 'default.wordCount': { minWords: 'many' } }] }, 'hi');
  assert.equal(result.status, 400);
  assert.match(result.json().error.param, /checks\[0\]\.parameters/);
});

test('a saved guardrail is named by its slug in a config; an unknown one is a 400 naming the entry', async () => {
  const created = await request(`${gateway.baseURL}/guardrails`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'no secrets', checks: [{ id: 'default.contains', parameters: { operator: 'none', words: ['secret'] } }], actions: { deny: true } }),
  });
  const saved = (await created.body.json()) as { slug: string };
  assert.equal(created.statusCode, 200);
  const before = upstream.requests.length;
  const denied = await chat({ ...target(), input_guardrails: [saved.slug] }, 'the secret is out');
  assert.equal(denied.status, 446);
  assert.equal(upstream.requests.length, before);
  const allowed = await chat({ ...target(), input_guardrails: [saved.slug] }, 'nothing to see');
  assert.equal(allowed.status, 200);
  const unknown = await chat({ ...target(), input_guardrails: ['pg-nope-000000'] }, 'hi');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json().error.param, 'config.input_guardrails[0]');

  // an update applies to the next request: the in-process copy is dropped on change, not left to its TTL
  const updated = await request(`${gateway.baseURL}/guardrails/${saved.slug}`, {
    method: 'PUT',
    headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ actions: { deny: false } }),
  });
  await updated.body.text();
  assert.equal(updated.statusCode, 200);
  const now = await chat({ ...target(), input_guardrails: [saved.slug] }, 'the secret is out');
  assert.equal(now.status, 200);
  assert.equal(now.headers['x-gateway-guardrails'], 'failed');
});

test('before_request_hooks and after_request_hooks (the older names) run like input and output guardrails', async () => {
  const before = upstream.requests.length;
  const denied = await chat({ ...target(), before_request_hooks: [{ type: 'guardrail', checks: [{ id: 'default.contains', parameters: { operator: 'none', words: ['forbidden'] } }], deny: true }] }, 'this is forbidden');
  assert.equal(denied.status, 446, denied.text);
  assert.equal(upstream.requests.length, before, 'no provider call was made');

  // the fake answers "Hello world": an output hook that wants "goodbye" fails it, without deny the answer is kept
  const judged = await chat({ ...target(), after_request_hooks: [{ 'default.contains': { operator: 'any', words: ['goodbye'] } }] }, 'hi');
  assert.equal(judged.status, 200, judged.text);
  assert.equal(judged.headers['x-gateway-guardrails'], 'failed');
  assert.equal(judged.json().hook_results.after_request_hooks[0].verdict, false);

  // `{id}` names a saved guardrail
  const created = await request(`${gateway.baseURL}/guardrails`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'no passwords', checks: [{ id: 'default.contains', parameters: { operator: 'none', words: ['password'] } }], actions: { deny: true } }),
  });
  const saved = (await created.body.json()) as { slug: string };
  const byId = await chat({ ...target(), before_request_hooks: [{ type: 'guardrail', id: saved.slug }] }, 'my password is 123');
  assert.equal(byId.status, 446, byId.text);
});
