/**
 * Usage limits end to end, with the official `openai` client against a real gateway and a fake upstream whose
 * reported usage the test chooses, on every storage back-end: a token budget stops further requests once spent
 * (429 naming it) and its alert is recorded once; a reset and a raised limit restore it; a concurrent burst against
 * a small budget overshoots at most the bound of docs/decisions.md; streams settle at their end; errors release;
 * the inline usage limits of keys and workspaces; a cost budget priced from the catalog.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { DEFAULT_COMPLETION_TOKENS } from '../../src/limits/budgets-estimate.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { auditLogs } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import { TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';
import { startUsageUpstream, type UsageUpstream } from './budgets-upstream.ts';

const POLICIES = '/policies/usage-limits';

for (const backend of testBackends()) {
  describe(`budgets end to end [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: UsageUpstream;
    let call: ReturnType<typeof adminClient>;

    before(async () => {
      upstream = await startUsageUpstream();
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }

    function client(metadata: Record<string, string>, key = gateway.adminKey): OpenAI {
      return new OpenAI({
        apiKey: 'sk-provider',
        baseURL: gateway.baseURL,
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'x-gateway-metadata': JSON.stringify(metadata) },
      });
    }

    const ask = (openai: OpenAI, extra: Record<string, unknown> = { max_tokens: 5 }) =>
      openai.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming);

    async function refused(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
      const error = await promise.then(() => undefined, (caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.APIError, `refused, got ${String(error)}`);
      assert.equal(error.status, 429, error.message);
      return error;
    }

    /** A token policy per user of a team (its own tag, so tests never share counters). */
    async function teamPolicy(creditLimit: number, extra: Record<string, unknown> = {}): Promise<{ id: string; team: string }> {
      const team = `team-${randomUUID()}`;
      const body = { name: `budget of ${team}`, conditions: [{ key: 'metadata._team', value: team }], group_by: [{ key: 'metadata._user' }], type: 'tokens', credit_limit: creditLimit, ...extra };
      return { id: (await ok('POST', POLICIES, body)).id, team };
    }

    async function entities(policyId: string): Promise<Record<string, { id: string; current_usage: number; status: string }>> {
      await gateway.gateway.budgets.flush();
      const list = await ok('GET', `${POLICIES}/${policyId}/entities`);
      return Object.fromEntries(list.data.map((entity: { value_key: string }) => [entity.value_key, entity]));
    }

    async function usageOf(policyId: string, valueKey: string): Promise<number> {
      await gateway.gateway.budgets.flush();
      const policy = await ok('GET', `${POLICIES}/${policyId}?include_usage=true`);
      return policy.value_key_usage_map[valueKey]?.current_usage ?? 0;
    }

    async function audits(action: string, policyId: string): Promise<number> {
      await gateway.gateway.budgets.flush();
      const rows = await gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.resourceId, policyId)));
      return rows.length;
    }

    /** the estimate the gateway reserves for the last request the upstream saw with this max_tokens */
    const estimateOfLast = (maxTokens: number) => Math.ceil(upstream.lastBodyBytes / 4) + maxTokens;

    test('a token budget stops further requests once spent; its alerts are recorded once; a reset and a raise restore it', async () => {
      const { id, team } = await teamPolicy(100, { alert_threshold: 60 });
      upstream.usage = { prompt: 30, completion: 20 };
      const ada = client({ _team: team, _user: 'ada' });
      await ask(ada);
      assert.ok(estimateOfLast(5) <= 50, 'each request reserves less than what is left until the last');
      await ask(ada);
      const error = await refused(ask(ada));
      assert.match(error.message, new RegExp(`budget of ${team}`), 'the message names the policy');
      assert.match(error.message, /metadata\._user:ada/);
      assert.match(error.message, /has used 100 tokens of 100 tokens/);
      assert.equal((error.error as { code?: string } | undefined)?.code, 'usage_limit_exhausted');
      // another value key of the same policy has its own budget
      await ask(client({ _team: team, _user: 'bob' }));

      const listed = await entities(id);
      assert.deepEqual([listed['metadata._user:ada']?.current_usage, listed['metadata._user:ada']?.status], [100, 'exhausted']);
      assert.deepEqual([listed['metadata._user:bob']?.current_usage, listed['metadata._user:bob']?.status], [50, 'active']);
      const map = (await ok('GET', `${POLICIES}/${id}?include_usage=true`)).value_key_usage_map;
      assert.deepEqual(map['metadata._user:ada'], { current_usage: 100, status: 'exhausted', is_threshold_alerts_sent: true, is_exhausted_alerts_sent: true });
      assert.equal(await audits('usage_limits.threshold_reached', id), 1, 'the threshold alert, once');
      assert.equal(await audits('usage_limits.exhausted', id), 1);
      await refused(ask(ada));
      assert.equal(await audits('usage_limits.threshold_reached', id), 1, 'still once');
      const metrics = await (await fetch(`${gateway.origin}/metrics`)).text();
      assert.match(metrics, /gateway_budget_alerts_total\{kind="threshold",source="policy"\} [1-9]/);
      assert.match(metrics, /gateway_budget_refused_total\{source="policy",type="tokens"\} [1-9]/);

      await ok('PUT', `${POLICIES}/${id}/entities/${listed['metadata._user:ada']!.id}/reset`);
      await ask(ada);
      assert.equal(await usageOf(id, 'metadata._user:ada'), 50);
      await ask(ada);
      await refused(ask(ada));
      await ok('PUT', `${POLICIES}/${id}`, { credit_limit: 1000 });
      await ask(ada);
      assert.equal((await entities(id))['metadata._user:ada']?.status, 'active', 'raised: active again');
    });

    test('a concurrent burst against a small budget admits what fits; the settled usage stays within the limit', async () => {
      const { id, team } = await teamPolicy(400);
      upstream.usage = { prompt: 10, completion: 5 };
      const openai = client({ _team: team, _user: 'burst' });
      await ask(openai, { max_tokens: 20 });
      const estimate = estimateOfLast(20);
      const before = await usageOf(id, 'metadata._user:burst');
      const admitted = Math.floor((400 - before) / estimate);
      const outcomes = await burst(20, () => ask(openai, { max_tokens: 20 }));
      assert.equal(outcomes.filter((outcome) => outcome === 200).length, admitted, `${admitted} reservations of ${estimate} fit`);
      assert.equal(outcomes.filter((outcome) => outcome === 429).length, 20 - admitted);
      const used = await usageOf(id, 'metadata._user:burst');
      assert.equal(used, before + admitted * 15);
      assert.ok(used <= 400, 'estimates that hold never overshoot');
    });

    test('requests that use more than their estimate overshoot by at most their excess over the reservation', async () => {
      const { id, team } = await teamPolicy(5000);
      // no max_tokens: the default completion is reserved, and each answer uses 500 more than that
      upstream.usage = { prompt: 10, completion: DEFAULT_COMPLETION_TOKENS + 500 };
      const openai = client({ _team: team, _user: 'greedy' });
      const outcomes = await burst(10, () => ask(openai, {}));
      const admitted = outcomes.filter((outcome) => outcome === 200).length;
      const estimate = estimateOfLast(DEFAULT_COMPLETION_TOKENS);
      assert.equal(admitted, Math.floor(5000 / estimate));
      const used = await usageOf(id, 'metadata._user:greedy');
      const excess = 10 + DEFAULT_COMPLETION_TOKENS + 500 - estimate;
      // every admitted request was in flight when the last one was admitted (the upstream held them all)
      assert.ok(used > 5000, 'this burst does overshoot');
      assert.ok(used - 5000 <= admitted * excess, `overshoot ${used - 5000} within ${admitted} x ${excess}`);
      await refused(ask(openai, {}));
    });

    /** `count` requests at once; the upstream holds the admitted ones until every request is either refused or there */
    async function burst(count: number, send: () => Promise<unknown>): Promise<number[]> {
      const settled = new EventEmitter();
      let refusedCount = 0;
      const base = upstream.received;
      upstream.hold = true;
      const requests = Array.from({ length: count }, () =>
        send().then(() => 200, (error: unknown) => {
          refusedCount += 1;
          settled.emit('refused');
          return error instanceof OpenAI.APIError ? (error.status ?? 0) : 0;
        }));
      await new Promise<void>((resolve) => {
        const check = () => {
          if (refusedCount + upstream.received - base < count) return;
          upstream.arrivals.off('request', check);
          settled.off('refused', check);
          resolve();
        };
        upstream.arrivals.on('request', check);
        settled.on('refused', check);
        check();
      });
      upstream.release();
      const outcomes = await Promise.all(requests);
      await gateway.gateway.budgets.flush();
      return outcomes;
    }

    test('streams settle at their end: with include_usage the usage, without it the reservation', async () => {
      const { id, team } = await teamPolicy(100_000);
      upstream.usage = { prompt: 11, completion: 4 };
      const openai = client({ _team: team, _user: 'streamer' });
      const counted = await openai.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, stream: true, stream_options: { include_usage: true } });
      for await (const _chunk of counted) { /* read to the end */ }
      await gateway.gateway.budgets.flush();
      assert.equal(await usageOf(id, 'metadata._user:streamer'), 15);
      const unknown = await openai.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, stream: true });
      for await (const _chunk of unknown) { /* read to the end */ }
      await gateway.gateway.budgets.flush();
      assert.equal(await usageOf(id, 'metadata._user:streamer'), 15 + estimateOfLast(5), 'usage not reported: the reservation is charged');
    });

    test('an upstream error releases the reservation', async () => {
      const { id, team } = await teamPolicy(100);
      const openai = client({ _team: team, _user: 'unlucky' });
      const error = await openai.chat.completions.create({ model: 'error', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }).then(() => undefined, (caught: unknown) => caught);
      assert.ok(error instanceof OpenAI.APIError && error.status === 500);
      assert.equal(await usageOf(id, 'metadata._user:unlucky'), 0, 'nothing charged');
      // the reservation was given back: two answers of 50 fit in 100
      upstream.usage = { prompt: 40, completion: 10 };
      await ask(openai);
      await ask(openai);
      await refused(ask(openai));
    });

    test('inline usage limits: an API key\'s and a workspace\'s count the same way, and a raised limit applies at once', async () => {
      const workspace = await ok('POST', '/admin/workspaces', { name: `Budgets ${randomUUID().slice(0, 8)}` });
      const key = await ok('POST', '/api-keys/workspace/service', { name: 'limited', scopes: ['completions.write'], workspace_id: workspace.id, usage_limits: { credit_limit: 60, type: 'tokens' } });
      upstream.usage = { prompt: 25, completion: 10 };
      const openai = client({}, key.key);
      await ask(openai);
      const error = await refused(ask(openai));
      assert.match(error.message, new RegExp(`API key ${key.id}`));
      assert.equal((error.error as { code?: string } | undefined)?.code, 'usage_limit_insufficient');
      await ok('PUT', `/api-keys/${key.id}`, { usage_limits: { credit_limit: 1000, type: 'tokens' } });
      await ask(openai);

      await ok('PUT', `/admin/workspaces/${workspace.id}`, { usage_limits: [{ credit_limit: 10, type: 'tokens' }] });
      const byWorkspace = await refused(ask(openai));
      assert.match(byWorkspace.message, new RegExp(`workspace ${workspace.id}`));
      await ok('PUT', `/admin/workspaces/${workspace.id}`, { usage_limits: [] });
      await ask(openai);
    });

    test('a cost budget counts USD at the model\'s catalog price', async () => {
      const key = await ok('POST', '/api-keys/organisation/service', { name: 'spender', scopes: ['completions.write'] });
      const { id } = await ok('POST', POLICIES, { conditions: [{ key: 'api_key', value: key.id }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 0.001 });
      // gpt-4o-mini: $0.15 and $0.60 per million tokens in and out
      upstream.usage = { prompt: 1000, completion: 1000 };
      const openai = client({}, key.key);
      const priced = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }], max_tokens: 1000 };
      await openai.chat.completions.create(priced);
      await gateway.gateway.budgets.flush();
      assert.equal(await usageOf(id, `api_key:${key.id}`), 0.00075);
      const error = await refused(openai.chat.completions.create(priced));
      assert.match(error.message, /USD/);
    });

    test('a saved provider\'s usage limit: exhausted in its status and refused (429) on both checks, until reset_usage', async () => {
      const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const integration = await insertIntegration(gateway.gateway.database.db, cipher, { organisationId, key: 'sk-stored', global: true, configurations: { custom_host: upstream.baseUrl } });
      const slug = `budgeted-${randomUUID().slice(0, 8)}`;
      await ok('POST', '/providers', { name: 'Budgeted', integration_id: integration.slug, slug, usage_limits: { credit_limit: 40, type: 'tokens' } });
      const openai = new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-provider': `@${slug}` } });
      upstream.usage = { prompt: 30, completion: 15 };
      await ask(openai);
      await gateway.gateway.budgets.flush();
      assert.equal((await ok('GET', `/providers/${slug}`)).status, 'exhausted');
      const error = await refused(ask(openai));
      assert.match(error.message, new RegExp(`@${slug}`));
      await ok('PUT', `/providers/${slug}`, { reset_usage: true });
      assert.equal((await ok('GET', `/providers/${slug}`)).status, 'active');
      await ask(openai);
    });
  });
}
