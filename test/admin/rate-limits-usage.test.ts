/**
 * A rate limits policy's current consumption on GET /v1/policies/rate-limits/{id}: real chat requests through the
 * gateway (a fake OpenAI upstream), then the counts per group_by value equal what was admitted, a refused request
 * counts nothing, a tokens policy counts the answers' tokens, an archived policy shows none. On PGlite with the
 * in-process counters, and on PostgreSQL with Redis (the Lua read script) when TEST_REDIS_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { request } from 'undici';
import { rowsOf } from '../../src/storage/migrate.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

interface Usage {
  entity: string;
  window_start: string;
  count: number;
  limit: number;
}

for (const backend of testBackends()) {
  const redisUrl = backend.name === 'pglite' ? undefined : process.env.TEST_REDIS_URL;
  describe(`rate limits policy usage on ${backend.name}${redisUrl ? ' and redis' : ''}`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let workspace: string;
    const keys: Array<{ id: string; key: string }> = [];

    async function ok(method: string, path: string, body?: unknown) {
      const response = await call(method, path, gateway.adminKey, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }

    async function chat(key: string, metadata: Record<string, string>): Promise<{ status: number; tokens: number }> {
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: {
          'x-gateway-api-key': key,
          'x-gateway-provider': 'openai',
          'x-gateway-custom-host': upstream.baseUrl,
          authorization: 'Bearer sk-client',
          'content-type': 'application/json',
          'x-gateway-metadata': JSON.stringify(metadata),
        },
        body: JSON.stringify({ model: 'usage-model', messages: [{ role: 'user', content: 'how many' }] }),
      });
      sentCount += 1;
      const body = (await response.body.json()) as { usage?: { total_tokens?: number } };
      return { status: response.statusCode, tokens: body.usage?.total_tokens ?? 0 };
    }

    let sentCount = 0;
    /**
     * The policy's usage once the request log has written every request sent so far (a row is queued when the
     * response's socket closes, which may come just after the client has read the answer).
     */
    async function usage(id: string): Promise<Usage[]> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        await gateway.gateway.requestLog.flush();
        const [row] = rowsOf<{ count: number }>(await gateway.gateway.database.db.execute(sql`select count(*)::int as count from request_logs`));
        if (row!.count >= sentCount) break;
        assert.ok(Date.now() < deadline, `the request log holds ${row!.count} of ${sentCount} requests`);
        await delay(10);
      }
      const read = await ok('GET', `/policies/rate-limits/${id}`);
      assert.ok(Array.isArray(read.usage), JSON.stringify(read));
      return read.usage;
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      upstream = await startFakeUpstream();
      gateway = await startTestGateway({ ...(created.url ? { databaseUrl: created.url } : {}), env: redisUrl ? { REDIS_URL: redisUrl } : {} });
      call = adminClient(gateway.baseURL);
      workspace = gateway.gateway.bootstrap.workspace.id;
      for (const name of ['one', 'two']) keys.push(await ok('POST', '/api-keys/workspace/service', { name, scopes: ['completions.write'], workspace_id: workspace }));
    });

    after(async () => {
      await gateway?.close();
      await upstream?.close();
      await drop();
    });

    test('counts per group_by value equal the admitted requests and tokens; a refusal counts nothing; archived shows none', async () => {
      const perKey = await ok('POST', '/policies/rate-limits', {
        name: 'per key', conditions: [{ key: 'workspace_id', value: workspace }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 4,
      });
      const perUser = await ok('POST', '/policies/rate-limits', {
        name: 'per user', conditions: [{ key: 'metadata.team', value: 'search' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rph', value: 100,
      });
      const tokens = await ok('POST', '/policies/rate-limits', {
        name: 'tokens', conditions: [{ key: 'workspace_id', value: workspace }], group_by: [{ key: 'provider' }, { key: 'api_key' }], type: 'tokens', unit: 'rpd', value: 1_000_000,
      });
      assert.deepEqual(await usage(perKey.id), [], 'nothing counted yet');

      const sent = [
        ...Array.from({ length: 5 }, () => [keys[0]!, { team: 'search', _user: 'ada' }] as const),
        [keys[1]!, { team: 'search', _user: 'bob' }] as const,
        [keys[1]!, { team: 'search', _user: 'bob' }] as const,
        [keys[1]!, { team: 'ads', _user: 'cy' }] as const,
      ];
      const answers = [];
      const started = Date.now();
      for (const [key, metadata] of sent) answers.push({ key, metadata, ...(await chat(key.key, metadata)) });
      // the fifth request of key one is over its limit of 4: refused, and counted by no policy
      assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 429, 200, 200, 200]);
      const admitted = answers.filter((answer) => answer.status === 200);

      const byKey = await usage(perKey.id);
      assert.deepEqual(byKey.map(({ entity, count, limit }) => ({ entity, count, limit })), [
        { entity: `api_key:${keys[0]!.id}`, count: 4, limit: 4 },
        { entity: `api_key:${keys[1]!.id}`, count: 3, limit: 4 },
      ]);
      for (const entry of byKey) {
        const start = Date.parse(entry.window_start);
        assert.ok(start <= started && start >= started - 61_000, `a minute's rolling window: ${entry.window_start}`);
      }

      const byUser = await usage(perUser.id);
      assert.deepEqual(byUser.map(({ entity, count }) => ({ entity, count })), [
        { entity: 'metadata._user:ada', count: 4 },
        { entity: 'metadata._user:bob', count: 2 },
      ], 'team ads is not matched by the conditions');

      const byTokens = await usage(tokens.id);
      const tokensOf = (key: { id: string }) => admitted.filter((answer) => answer.key === key).reduce((total, answer) => total + answer.tokens, 0);
      assert.ok(tokensOf(keys[0]!) > 0, 'the fake upstream reports usage');
      assert.deepEqual(byTokens.map(({ entity, count }) => ({ entity, count })).sort((a, b) => a.entity.localeCompare(b.entity)), [
        { entity: `provider:openai,api_key:${keys[0]!.id}`, count: tokensOf(keys[0]!) },
        { entity: `provider:openai,api_key:${keys[1]!.id}`, count: tokensOf(keys[1]!) },
      ].sort((a, b) => a.entity.localeCompare(b.entity)));

      // the list does not read counters (one read per policy would make a page slow)
      const listed = await ok('GET', '/policies/rate-limits?page_size=100');
      assert.ok(listed.data.every((row: Record<string, unknown>) => !('usage' in row)));

      await ok('DELETE', `/policies/rate-limits/${perKey.id}`);
      assert.deepEqual((await ok('GET', `/policies/rate-limits/${perKey.id}?status=archived`)).usage, [], 'an archived policy counts nothing');
    });
  });
}
