/**
 * Rate limits enforced on the embedded default (one process, the in-process counter store, PGlite): a policy of N
 * admits exactly N and the fake upstream sees exactly those; the next is a 429 with retry-after and x-ratelimit-*
 * naming the policy; group_by counts each value apart; tokens limits count an answer's usage (JSON and streams)
 * and refuse the next request; the inline rate_limits of API keys and workspaces count the same way; a change
 * applies to the very next request; the pass-through route is limited too; a saved provider's rate_limits hold
 * for every caller of `@slug`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { request } from 'undici';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';

let gateway: TestGateway;
let upstream: FakeUpstream;
let call: ReturnType<typeof adminClient>;
let workspace: string;

async function ok(method: string, path: string, body?: unknown) {
  const response = await call(method, path, gateway.adminKey, body);
  assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
  return response.body;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One chat request; `model` tells the fake upstream's requests of one test apart. */
async function chat(model: string, options: { key?: string; metadata?: Record<string, string>; stream?: boolean; path?: string; provider?: string } = {}): Promise<Answer> {
  const body = { model, messages: [{ role: 'user', content: 'hi' }], ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
  const response = await request(`${gateway.baseURL}${options.path ?? '/chat/completions'}`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': options.key ?? gateway.adminKey,
      ...(options.provider ? { 'x-gateway-provider': options.provider } : { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: 'Bearer sk-client' }),
      'content-type': 'application/json',
      ...(options.metadata ? { 'x-gateway-metadata': JSON.stringify(options.metadata) } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: options.stream && response.statusCode === 200 ? text : JSON.parse(text) };
}

const seen = (model: string) => upstream.requests.filter((recorded) => (recorded.json as { model?: string } | undefined)?.model === model).length;

function assertRefused(answer: Answer, limit: number, named: RegExp): void {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  assert.equal(answer.body.error.type, 'rate_limit_error');
  assert.equal(answer.body.error.code, 'rate_limit_exceeded');
  assert.match(answer.body.error.message, named);
  const retryAfter = Number(answer.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 86_400, `retry-after ${answer.headers['retry-after']}`);
  assert.equal(answer.headers['x-ratelimit-limit'], String(limit));
  assert.equal(answer.headers['x-ratelimit-remaining'], '0');
  assert.equal(answer.headers['x-ratelimit-reset'], answer.headers['retry-after']);
}

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  call = adminClient(gateway.baseURL);
  workspace = gateway.gateway.bootstrap.workspace.id;
});

after(async () => {
  await gateway?.close();
  await upstream?.close();
});

test('a requests policy of N admits exactly N, the upstream sees exactly N, the next is a 429 naming the policy', async () => {
  const policy = await ok('POST', '/policies/rate-limits', {
    name: 'three per user', conditions: [{ key: 'metadata.team', value: 'alpha' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpm', value: 3,
  });
  const ada = { team: 'alpha', _user: 'ada' };
  for (let index = 0; index < 3; index += 1) assert.equal((await chat('policy-n', { metadata: ada })).status, 200);
  const refused = await chat('policy-n', { metadata: ada });
  assertRefused(refused, 3, new RegExp(`"three per user" \\(${policy.id}\\) for metadata\\._user:ada allows 3 requests per minute`));
  assert.equal(seen('policy-n'), 3, 'the refused request never reached the provider');
  // the official client shows the 429 as its RateLimitError, with the message
  const openai = new OpenAI({ apiKey: 'sk-client', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-metadata': JSON.stringify(ada) } });
  await assert.rejects(openai.chat.completions.create({ model: 'policy-n', messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => error instanceof OpenAI.RateLimitError && /three per user/.test(error.message));
  // group_by: another user has a counter of its own; a request the conditions do not take is not counted
  assert.equal((await chat('policy-n', { metadata: { team: 'alpha', _user: 'bob' } })).status, 200);
  assert.equal((await chat('policy-n', { metadata: { team: 'beta', _user: 'ada' } })).status, 200);
  assert.equal((await chat('policy-n', { metadata: { team: 'alpha' } })).status, 200, 'no _user: not counted by a per-user policy');
  assert.equal(seen('policy-n'), 6);
  const metrics = await request(`${gateway.origin}/metrics`);
  assert.match(await metrics.body.text(), /gateway_rate_limited_total\{source="policy",type="requests"\} [1-9]/);
});

test('concurrent requests: exactly N of them reach the provider', async () => {
  await ok('POST', '/policies/rate-limits', { conditions: [{ key: 'metadata.team', value: 'burst' }], group_by: [{ key: 'workspace_id' }], type: 'requests', unit: 'rph', value: 7 });
  const answers = await Promise.all(Array.from({ length: 20 }, () => chat('burst', { metadata: { team: 'burst' } })));
  assert.equal(answers.filter((answer) => answer.status === 200).length, 7);
  assert.equal(answers.filter((answer) => answer.status === 429).length, 13);
  assert.equal(seen('burst'), 7);
});

test('a change applies to the very next request: a higher value admits more, a deleted policy counts nothing', async () => {
  const policy = await ok('POST', '/policies/rate-limits', { conditions: [{ key: 'metadata.team', value: 'gamma' }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 1 });
  const meta = { team: 'gamma' };
  assert.equal((await chat('change', { metadata: meta })).status, 200);
  assert.equal((await chat('change', { metadata: meta })).status, 429);
  assert.deepEqual(await ok('PUT', `/policies/rate-limits/${policy.id}`, { value: 2 }), {});
  assert.equal((await chat('change', { metadata: meta })).status, 200);
  assert.equal((await chat('change', { metadata: meta })).status, 429);
  await ok('DELETE', `/policies/rate-limits/${policy.id}`);
  assert.equal((await chat('change', { metadata: meta })).status, 200);
  assert.equal(seen('change'), 3);
});

test('a tokens policy counts each answer\'s usage after it, JSON and streams, and refuses once the window is full', async () => {
  // the fake upstream reports 7 tokens per chat answer: 0 and 7 are under 10, 14 is not
  await ok('POST', '/policies/rate-limits', { name: 'tokens', conditions: [{ key: 'metadata.team', value: 'tokens' }], group_by: [{ key: 'metadata._user' }], type: 'tokens', unit: 'rpm', value: 10 });
  const json = { team: 'tokens', _user: 'json' };
  assert.equal((await chat('tokens-json', { metadata: json })).status, 200);
  assert.equal((await chat('tokens-json', { metadata: json })).status, 200);
  assertRefused(await chat('tokens-json', { metadata: json }), 10, /"tokens" .* allows 10 tokens per minute/);
  assert.equal(seen('tokens-json'), 2);
  const streamed = { team: 'tokens', _user: 'stream' };
  for (let index = 0; index < 2; index += 1) {
    const answer = await chat('tokens-stream', { metadata: streamed, stream: true });
    assert.equal(answer.status, 200);
    assert.match(answer.body, /"total_tokens":7/);
  }
  assert.equal((await chat('tokens-stream', { metadata: streamed, stream: true })).status, 429, 'a stream\'s tokens count once it has ended');
  assert.equal(seen('tokens-stream'), 2);
});

test('an API key\'s inline rate_limits: its own counter, named in the refusal; other keys are not held back', async () => {
  const limited = await ok('POST', '/api-keys/workspace/service', { name: 'limited', scopes: ['completions.write'], workspace_id: workspace, rate_limits: [{ type: 'requests', unit: 'rpm', value: 2 }] });
  const free = await ok('POST', '/api-keys/workspace/service', { name: 'free', scopes: ['completions.write'], workspace_id: workspace });
  for (let index = 0; index < 2; index += 1) assert.equal((await chat('key-limit', { key: limited.key })).status, 200);
  assertRefused(await chat('key-limit', { key: limited.key }), 2, new RegExp(`the rate limit of API key ${limited.id} allows 2 requests per minute`));
  assert.equal((await chat('key-limit', { key: free.key })).status, 200);
  assert.equal(seen('key-limit'), 3);
  // raised through the admin API: the key's next request sees it
  await ok('PUT', `/api-keys/${limited.id}`, { rate_limits: [{ type: 'requests', unit: 'rpm', value: 3 }] });
  assert.equal((await chat('key-limit', { key: limited.key })).status, 200);
  assert.equal((await chat('key-limit', { key: limited.key })).status, 429);
});

test('a workspace\'s inline rate_limits count every key of the workspace together', async () => {
  const team = await ok('POST', '/admin/workspaces', { name: 'Limited team', rate_limits: [{ type: 'requests', unit: 'rph', value: 3 }] });
  const first = await ok('POST', '/api-keys/workspace/service', { name: 'one', scopes: ['completions.write'], workspace_id: team.id });
  const second = await ok('POST', '/api-keys/workspace/service', { name: 'two', scopes: ['completions.write'], workspace_id: team.id });
  assert.equal((await chat('workspace-limit', { key: first.key })).status, 200);
  assert.equal((await chat('workspace-limit', { key: second.key })).status, 200);
  assert.equal((await chat('workspace-limit', { key: first.key })).status, 200);
  assertRefused(await chat('workspace-limit', { key: second.key }), 3, new RegExp(`the rate limit of workspace ${team.id}`));
  assert.equal(seen('workspace-limit'), 3);
  await ok('PUT', `/admin/workspaces/${team.id}`, { rate_limits: [] });
  assert.equal((await chat('workspace-limit', { key: second.key })).status, 200, 'a removed limit stops counting at once');
});

test('the pass-through route is limited before anything is forwarded', async () => {
  await ok('POST', '/policies/rate-limits', { conditions: [{ key: 'metadata.team', value: 'proxy' }], group_by: [{ key: 'provider' }], type: 'requests', unit: 'rpm', value: 1 });
  const before = upstream.requests.length;
  const first = await chat('proxied', { metadata: { team: 'proxy' }, path: '/custom/endpoint' });
  assert.equal(first.status, 200);
  assert.equal(first.body.echo, true, 'forwarded to the provider');
  const second = await chat('proxied', { metadata: { team: 'proxy' }, path: '/custom/endpoint' });
  assertRefused(second, 1, /for provider:openai/);
  assert.equal(upstream.requests.length, before + 1);
});

test('a saved provider\'s rate_limits count every request through @slug, whoever sends it', async () => {
  const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
  const integration = await insertIntegration(gateway.gateway.database.db, cipher, {
    organisationId: gateway.gateway.bootstrap.organisation.id, key: 'sk-stored', global: true, configurations: { custom_host: upstream.baseUrl },
  });
  const created = await call('POST', '/providers', gateway.adminKey, { name: 'Limited', integration_id: integration.slug, slug: 'limited-openai', rate_limits: { type: 'requests', unit: 'rpm', value: 2 } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const other = await ok('POST', '/api-keys/workspace/service', { name: 'other caller', scopes: ['completions.write'], workspace_id: workspace });
  assert.equal((await chat('provider-limit', { provider: '@limited-openai' })).status, 200);
  assert.equal((await chat('provider-limit', { provider: '@limited-openai', key: other.key })).status, 200);
  assertRefused(await chat('provider-limit', { provider: '@limited-openai' }), 2, /the rate limit of provider @limited-openai allows 2 requests per minute/);
  assert.equal(seen('provider-limit'), 2);
  assert.equal((await chat('provider-limit')).status, 200, 'the same provider named directly is not that saved provider');
});

test('a provider\'s limit refusing one target of a fallback config moves on to the next target', async () => {
  // @limited-openai (the test above) is full for this minute: the config's second target answers instead
  const config = {
    strategy: { mode: 'fallback' },
    targets: [{ provider: '@limited-openai' }, { provider: 'openai', custom_host: upstream.baseUrl, api_key: 'sk-fallback' }],
  };
  const response = await request(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': JSON.stringify(config), 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'provider-fallback', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.body.dump();
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-gateway-last-used-option-index'], 'config.targets[1]');
  assert.equal(seen('provider-fallback'), 1);
  assert.equal(upstream.requests.at(-1)!.headers.authorization, 'Bearer sk-fallback');
});
