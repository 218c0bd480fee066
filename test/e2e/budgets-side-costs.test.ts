/**
 * Usage limits count what a request pays for besides its chosen answer, as the request log's `cost` does: the
 * answers a retry dropped, the answer a fallback left behind, and the semantic cache's embedding call (on a miss
 * and on a semantic hit). A cost and a token policy on one API key; the official openai client through a real
 * gateway to fake upstreams on 127.0.0.1; the policies' usage and the request log rows read back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { findRequestLogsByTraceId } from '../../src/storage/repositories/request-logs.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startUsageUpstream, type UsageUpstream } from './budgets-upstream.ts';

const POLICIES = '/policies/usage-limits';

for (const backend of testBackends()) {
  describe(`budgets count side costs [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let usage: UsageUpstream;
    let call: ReturnType<typeof adminClient>;

    before(async () => {
      [upstream, usage] = await Promise.all([startFakeUpstream(), startUsageUpstream()]);
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
    });
    after(() => closeAll(() => gateway?.close(), () => upstream?.close(), () => usage?.close()));

    async function ok(method: string, path: string, body?: unknown) {
      const response = await call(method, path, gateway.adminKey, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }

    /** A new API key with a cost and a token policy of its own; `used()` reads both back as [USD, tokens]. */
    async function budgetedKey() {
      const key = await ok('POST', '/api-keys/organisation/service', { name: `side costs ${randomUUID().slice(0, 8)}`, scopes: ['completions.write'] });
      const policy = (type: string, creditLimit: number) => ok('POST', POLICIES, { conditions: [{ key: 'api_key', value: key.id }], group_by: [{ key: 'api_key' }], type, credit_limit: creditLimit });
      const [cost, tokens] = await Promise.all([policy('cost', 10), policy('tokens', 1_000_000)]);
      const usageOf = async (id: string) => (await ok('GET', `${POLICIES}/${id}?include_usage=true`)).value_key_usage_map[`api_key:${key.id}`]?.current_usage ?? 0;
      return {
        key: key.key as string,
        async used(): Promise<[number, number]> {
          await gateway.gateway.budgets.flush();
          return [await usageOf(cost.id), await usageOf(tokens.id)];
        },
      };
    }

    async function ask(key: string, config: unknown, content: string, headers: Record<string, string> = {}) {
      const trace = randomUUID();
      const client = new OpenAI({ apiKey: 'sk-provider', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-config': JSON.stringify(config), ...headers } });
      const { data, response } = await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 1000 }, { headers: { 'x-gateway-trace-id': trace } })
        .withResponse();
      return { trace, data, status: response.headers.get('x-gateway-cache-status') };
    }

    async function loggedCost(trace: string): Promise<string | null> {
      await gateway.gateway.requestLog.flush();
      const rows = await findRequestLogsByTraceId(gateway.gateway.database.db, gateway.gateway.bootstrap.organisation.id, trace);
      assert.equal(rows.length, 1);
      return rows[0]!.cost;
    }

    test('answers a retry dropped and a fallback left behind are charged, beside the chosen one', async () => {
      const { key, used } = await budgetedKey();
      // gpt-4o-mini: $0.15 and $0.60 per million tokens in and out: 0.00075 USD and 2000 tokens per answer
      usage.usage = { prompt: 1000, completion: 1000 };
      const target = { provider: 'openai', custom_host: usage.baseUrl };
      const denyHi = { 'default.contains': { operator: 'none', words: ['Hi'] }, deny: true };
      const config = {
        strategy: { mode: 'fallback' },
        targets: [{ ...target, output_guardrails: [denyHi], retry: { attempts: 1, on_status_codes: [446] } }, target],
      };
      const before = usage.received;
      const answer = await ask(key, config, 'hello');
      assert.equal(answer.data.choices[0]?.message.content, 'Hi');
      assert.equal(usage.received, before + 3, 'denied, retried and denied again, then the fallback');
      assert.equal(await loggedCost(answer.trace), '0.002250000000', 'the request log counts three answers');
      assert.deepEqual(await used(), [0.00225, 6000], 'and so do the budgets');
    });

    test('the semantic cache\'s embedding is charged on a miss and on a semantic hit', async () => {
      const { key, used } = await budgetedKey();
      // the chat answer: gpt-4o-mini 5 x $0.15 + 2 x $0.60 per million = 0.00000195; the embedding (1 token of
      // text-embedding-3-small at $0.02 per million) 0.00000002
      const config = { provider: 'openai', custom_host: upstream.baseUrl, cache: { mode: 'semantic', max_age: 60, embedding: { provider: 'openai', model: 'text-embedding-3-small' } } };
      const namespace = { 'x-gateway-cache-namespace': `budget-side-costs-${randomUUID()}` };
      const miss = await ask(key, config, 'What is the capital of France?', namespace);
      assert.equal(miss.status, 'MISS');
      assert.equal(await loggedCost(miss.trace), '0.000001970000');
      assert.deepEqual(await used(), [0.00000197, 7 + 1]);
      // the fake's embeddings of this model are all the same vector: any other question is a semantic hit
      const hit = await ask(key, config, 'And of Italy, please?', namespace);
      assert.equal(hit.status, 'SEMANTIC HIT');
      assert.equal(await loggedCost(hit.trace), '0.000000020000');
      assert.deepEqual(await used(), [0.00000199, 7 + 1 + 1], 'a hit reserves nothing, and is charged its embedding');
    });
  });
}
