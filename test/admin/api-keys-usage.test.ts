/**
 * An API key's inline budget (`usage_limits`) through the admin API and inference, on every back-end (with
 * TEST_REDIS_URL the PostgreSQL run counts in Redis): requests to a fake upstream use the budget up, the key then
 * reads `status: "exhausted"` (in its read and in the list) and is refused with 429; `reset_usage: true` on its PUT
 * zeroes the budget, so it reads `active` and its requests pass again. A reset needs the update right (denied and
 * audited otherwise) and leaves another key's budget alone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { request } from 'undici';
import { auditLogs } from '../../src/storage/schema.ts';
import { startUsageUpstream, type UsageUpstream } from '../e2e/budgets-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const redisUrl = process.env.TEST_REDIS_URL;

for (const backend of testBackends()) {
  const store = backend.name === 'postgres' && redisUrl ? 'redis' : 'memory';
  describe(`an API key's usage limit: exhausted, reset_usage [${backend.name}, ${store}]`, () => {
    let gateway: TestGateway;
    let upstream: UsageUpstream;
    let call: ReturnType<typeof adminClient>;

    before(async () => {
      upstream = await startUsageUpstream();
      gateway = await startBackendGateway(backend, store === 'redis' ? { env: { REDIS_URL: redisUrl! } } : {});
      call = adminClient(gateway.baseURL);
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }

    /** a chat request with `key`; its status, and the error code of a refusal */
    async function chat(key: string): Promise<{ status: number; code?: string; message?: string }> {
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, authorization: 'Bearer sk-client', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
      });
      const body = (await response.body.json()) as { error?: { code?: string; message?: string } };
      return { status: response.statusCode, ...(body.error ? { code: body.error.code!, message: body.error.message! } : {}) };
    }

    const statusOf = async (id: string) => (await ok('GET', `/api-keys/${id}`)).status as string;

    test('used up: reads exhausted and is refused; reset_usage: reads active and passes again', async () => {
      const key = await ok('POST', '/api-keys/organisation/service', { name: `budgeted ${randomUUID().slice(0, 8)}`, scopes: ['completions.write'], usage_limits: { credit_limit: 40, type: 'tokens' } });
      const other = await ok('POST', '/api-keys/organisation/service', { name: 'other', scopes: ['completions.write'], usage_limits: { credit_limit: 40, type: 'tokens' } });
      assert.equal(await statusOf(key.id), 'active');
      // each answer reports 45 tokens: one request uses the whole budget of 40
      upstream.usage = { prompt: 30, completion: 15 };
      const received = upstream.received;
      assert.equal((await chat(key.key)).status, 200);
      assert.equal((await chat(other.key)).status, 200);
      await gateway.gateway.budgets.flush();
      assert.equal(await statusOf(key.id), 'exhausted');
      const listed = await ok('GET', '/api-keys?page_size=100');
      const row = (id: string) => listed.data.find((entry: { id: string }) => entry.id === id);
      assert.equal(row(key.id).status, 'exhausted', 'the list shows it too');
      const refused = await chat(key.key);
      assert.equal(refused.status, 429);
      assert.equal(refused.code, 'usage_limit_exhausted');
      assert.match(refused.message ?? '', new RegExp(`API key ${key.id}`));
      assert.equal(upstream.received, received + 2, 'the refused request never reached the upstream');

      assert.deepEqual(await ok('PUT', `/api-keys/${key.id}`, { reset_usage: true }), {});
      assert.equal(await statusOf(key.id), 'active');
      assert.equal(await statusOf(other.id), 'exhausted', 'another key\'s budget is not reset');
      assert.equal((await chat(key.key)).status, 200, 'the budget counts from zero');
      assert.equal((await chat(other.key)).status, 429);
      await gateway.gateway.budgets.flush();
      assert.equal(await statusOf(key.id), 'exhausted', 'and is used up again by the same use');
      const audits = await gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, 'api_keys.update'), eq(auditLogs.resourceId, key.id)));
      assert.ok(audits.some((audit) => audit.outcome === 'success'), 'the reset is audited');
    });

    test('a raised limit reads active at once; reset_usage without a budget, or false, changes nothing; a bad value is a 400', async () => {
      const key = await ok('POST', '/api-keys/organisation/service', { name: 'raise', scopes: ['completions.write'], usage_limits: { credit_limit: 40, type: 'tokens' } });
      upstream.usage = { prompt: 30, completion: 15 };
      assert.equal((await chat(key.key)).status, 200);
      await gateway.gateway.budgets.flush();
      assert.equal(await statusOf(key.id), 'exhausted');
      await ok('PUT', `/api-keys/${key.id}`, { reset_usage: false });
      assert.equal(await statusOf(key.id), 'exhausted', 'reset_usage: false resets nothing');
      await ok('PUT', `/api-keys/${key.id}`, { usage_limits: { credit_limit: 1000, type: 'tokens' } });
      assert.equal(await statusOf(key.id), 'active', 'room again under the raised limit');
      assert.equal((await chat(key.key)).status, 200);
      const unlimited = await ok('POST', '/api-keys/organisation/service', { name: 'no budget', scopes: ['completions.write'] });
      assert.deepEqual(await ok('PUT', `/api-keys/${unlimited.id}`, { reset_usage: true }), {});
      assert.equal(await statusOf(unlimited.id), 'active');
      const bad = await call('PUT', `/api-keys/${key.id}`, gateway.adminKey, { reset_usage: 'yes' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.param, 'reset_usage');
    });

    test('a key without the update right cannot reset (403, audited as denied), and the budget stays used up', async () => {
      const key = await ok('POST', '/api-keys/organisation/service', { name: 'guarded', scopes: ['completions.write'], usage_limits: { credit_limit: 40, type: 'tokens' } });
      const reader = await ok('POST', '/api-keys/organisation/service', { name: 'reader', scopes: ['organisation_service_api_keys.read'] });
      upstream.usage = { prompt: 30, completion: 15 };
      assert.equal((await chat(key.key)).status, 200);
      await gateway.gateway.budgets.flush();
      const denied = await call('PUT', `/api-keys/${key.id}`, reader.key, { reset_usage: true });
      assert.equal(denied.status, 403, JSON.stringify(denied.body));
      assert.equal((await ok('GET', `/api-keys/${key.id}`, undefined, reader.key)).status, 'exhausted', 'a reader sees the status');
      assert.equal((await chat(key.key)).status, 429, 'still used up');
      const audits = await gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, 'api_keys.update'), eq(auditLogs.outcome, 'denied')));
      assert.ok(audits.length >= 1);
    });
  });
}
