/**
 * A workspace's default guardrails (PUT /admin/workspaces/{id} `defaults.input_guardrails|output_guardrails`) run
 * on every request of the workspace, with or without a config, before the config's own; a change applies to the
 * very next request; other workspaces are untouched.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
let call: ReturnType<typeof adminClient>;
let defaultWorkspace: string;
let otherKey: string;

async function ok(method: string, path: string, body?: unknown) {
  const response = await call(method, path, gateway.adminKey, body);
  assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
  return response.body;
}

async function saveGuardrail(name: string, word: string): Promise<string> {
  const created = await ok('POST', '/guardrails', {
    name,
    checks: [{ id: 'default.contains', parameters: { operator: 'none', words: [word] } }],
    actions: { deny: true },
  });
  return created.slug as string;
}

const setDefaults = (defaults: Record<string, unknown>) => ok('PUT', `/admin/workspaces/${defaultWorkspace}`, { defaults });

function client(key = gateway.adminKey, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({
    apiKey: 'sk-client',
    baseURL: gateway.baseURL,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, ...headers },
  });
}

const ask = (content: string, openai = client()) => openai.chat.completions.create({ model: 'good', messages: [{ role: 'user', content }] });

/** The raw answer of a request the openai client would only show as an exception: the whole body, hooks included. */
async function denied(content: string, headers: Record<string, string> = {}): Promise<Record<string, any>> {
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl,
      authorization: 'Bearer sk-client', 'content-type': 'application/json', ...headers,
    },
    body: JSON.stringify({ model: 'good', messages: [{ role: 'user', content }] }),
  });
  const body = (await response.body.json()) as Record<string, any>;
  assert.equal(response.statusCode, 446, JSON.stringify(body));
  return body;
}

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  call = adminClient(gateway.baseURL);
  const workspaces = await ok('GET', '/admin/workspaces');
  defaultWorkspace = workspaces.data.find((workspace: { is_default?: number; defaults?: { is_default?: number } }) => workspace.defaults?.is_default === 1 || workspace.is_default === 1)?.id;
  assert.ok(defaultWorkspace, 'the default workspace is listed');
  const other = await ok('POST', '/admin/workspaces', { name: 'Other' });
  otherKey = (await ok('POST', '/api-keys/workspace/service', { name: 'other', workspace_id: other.id, scopes: ['completions.write'] })).key;
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

test('an input default guardrail denies requests without a config, before any provider call, and the next change applies at once', async () => {
  const slug = await saveGuardrail('No secrets', 'secret');
  await setDefaults({ input_guardrails: [slug] });

  const since = upstream.requests.length;
  const body = await denied('tell me the secret');
  assert.equal(body.error.code, 'input_guardrail_denied');
  assert.equal(body.hook_results.before_request_hooks[0].id, slug);
  assert.equal(upstream.requests.length, since, 'no provider call');

  const allowed = await ask('tell me a joke');
  assert.equal(allowed.choices[0]!.message.content, 'Hello world');

  // another workspace's requests are not affected
  const elsewhere = await ask('tell me the secret', client(otherKey));
  assert.equal(elsewhere.choices[0]!.message.content, 'Hello world');

  await setDefaults({ input_guardrails: [] });
  const after = await ask('tell me the secret');
  assert.equal(after.choices[0]!.message.content, 'Hello world', 'removing the default applies to the next request');
});

test('default guardrails run before a config\'s own, and output defaults check the answer', async () => {
  const input = await saveGuardrail('No passwords', 'password');
  const output = await saveGuardrail('No world', 'world');
  await setDefaults({ input_guardrails: [input], output_guardrails: [] });

  const config = JSON.stringify({ provider: 'openai', custom_host: upstream.baseUrl, input_guardrails: [{ 'default.wordCount': { minWords: 1, maxWords: 100 } }] });
  const body = await denied('my password is hunter2', { 'x-gateway-config': config });
  const hooks = body.hook_results.before_request_hooks as Array<{ id: string; verdict: boolean }>;
  assert.deepEqual(hooks.map((hook) => hook.verdict), [false, true], 'the workspace hook first, then the config\'s');
  assert.equal(hooks[0]!.id, input);

  await setDefaults({ input_guardrails: [], output_guardrails: [output] });
  const since = upstream.requests.length;
  const denial = await denied('hello');
  assert.equal(denial.error.code, 'output_guardrail_denied');
  assert.equal(upstream.requests.length, since + 1, 'the provider answered; its answer was withheld');
  await setDefaults({ output_guardrails: [] });
});

test('a default naming a guardrail that no longer exists fails closed with a 400 naming it', async () => {
  const slug = await saveGuardrail('Temporary', 'nothing');
  await setDefaults({ input_guardrails: [slug] });
  await ok('DELETE', `/guardrails/${slug}`);
  const since = upstream.requests.length;
  await assert.rejects(ask('hello'), (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 400);
    assert.equal((error.error as { param: string }).param, 'workspace.defaults.input_guardrails[0]');
    return true;
  });
  assert.equal(upstream.requests.length, since);
  await setDefaults({ input_guardrails: [] });
});
