/**
 * Analytics (api-surface §3.20): a known data set written through insertRequestLogs (so the rollups fill the real
 * way, in several batches), then every one of the 21 operations checked against sums computed here from the same
 * rows, on PGlite and the real PostgreSQL. Ranges start and end inside hours, so the rollup path's raw edges are
 * exercised; filters the rollup cannot answer (metadata, cost, trace ids) take the raw path and must agree.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { rowsOf } from '../../src/storage/migrate.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const USERS = ['ana', 'ben', 'cy'];

type Row = NewRequestLogRow & { createdAt: Date };

function makeRows(organisationId: string, A: string, B: string, base: number, userId: string): Row[] {
  const keys = [randomUUID(), randomUUID()];
  const rows: Row[] = [];
  for (let i = 0; i < 300; i++) {
    const [provider, model] = i % 3 === 0 ? ['anthropic', 'claude-3'] : ['openai', 'gpt-4o'];
    const status = i % 11 === 0 ? 500 : i % 13 === 0 ? 429 : 200;
    const cacheStatus = status !== 200 ? 'MISS' : i % 4 === 0 ? 'HIT' : i % 9 === 0 ? 'SEMANTIC HIT' : 'MISS';
    const hit = cacheStatus !== 'MISS';
    const fallback = status === 200 && !hit && i % 10 === 3;
    const prompt = 10 + (i % 50);
    const completion = i % 5 === 0 ? null : 5 + (i % 20);
    const metadata: Record<string, unknown> = i % 8 === 0 ? {} : { team: i % 2 ? 'search' : 'ads', ...(i % 6 === 1 ? {} : { _user: USERS[i % 3] }) };
    rows.push({
      id: randomUUID(),
      organisationId,
      workspaceId: i % 5 === 4 ? B : A,
      apiKeyId: keys[i % 2]!,
      userId: i % 6 === 1 ? userId : null,
      createdAt: new Date(base + ((i * 7919) % (72 * 60)) * 60_000 + (i % 60) * 1000),
      traceId: `trace-${i}`,
      spanId: `span-${i % 4}`,
      route: 'chat',
      method: 'POST',
      path: '/v1/chat/completions',
      provider,
      model,
      status,
      isSuccess: status === 200,
      responseTimeMs: hit ? 3 + (i % 10) : 20 + ((i * 37) % 900),
      cacheStatus,
      retryCount: i % 7 === 0 ? (i % 2) + 1 : 0,
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + (completion ?? 0),
      cost: status === 200 && !hit ? (0.0001 * ((i % 17) + 1)).toFixed(6) : hit ? '0' : null,
      savedCost: hit ? (0.0002 * ((i % 5) + 1)).toFixed(6) : null,
      metadata,
      lastUsedOptionIndex: fallback ? '$.targets[1]' : '$.targets[0]',
      attempts: fallback
        ? [{ path: '$.targets[0]', status: 500, retry: 0 }, { path: '$.targets[1]', status: 200, retry: 0 }]
        : [{ path: '$.targets[0]', status, retry: 0 }],
    });
  }
  return rows;
}

// ---- the sums, by hand ----
const sum = (rows: readonly Row[], pick: (row: Row) => number) => rows.reduce((total, row) => total + pick(row), 0);
const usd = (value: string | null | undefined) => (value ? Number(value) : 0);
const isHit = (row: Row) => row.cacheStatus === 'HIT' || row.cacheStatus === 'SEMANTIC HIT';
const userOf = (row: Row) => (row.metadata as Record<string, string>)._user ?? row.userId ?? null;
const bucketOf = (time: number, size: number) => Math.floor(time / size) * size;

function close(actual: unknown, expected: number, what: string, tolerance = 0.011): void {
  assert.equal(typeof actual, 'number', `${what}: ${String(actual)}`);
  assert.ok(Math.abs((actual as number) - expected) <= tolerance, `${what}: ${String(actual)} != ${expected}`);
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

for (const backend of testBackends()) {
  describe(`analytics on ${backend.name}`, () => {
    let gateway: TestGateway;
    let drop: () => Promise<void> = async () => {};
    let call: ReturnType<typeof adminClient>;
    let A: string;
    let B: string;
    let keyA: string;
    let rows: Row[];
    let base: number;
    const feedbackGiven: Array<{ trace: string; value: number; weight: number }> = [];

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      const admin = gateway.adminKey;
      A = (await call('POST', '/admin/workspaces', admin, { name: 'Analytics A', slug: 'ws-analytics-a' })).body.id;
      B = (await call('POST', '/admin/workspaces', admin, { name: 'Analytics B', slug: 'ws-analytics-b' })).body.id;
      keyA = (await call('POST', '/api-keys/workspace/service', admin, { name: 'svc A', scopes: [...ALL_SCOPES], workspace_id: A })).body.key;
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      // four days back, at a day's start: the rows span the three days after it, the feedback is given now
      base = bucketOf(Date.now(), DAY) - 4 * DAY;
      rows = makeRows(organisationId, A, B, base, randomUUID());
      for (let start = 0; start < rows.length; start += 70) await insertRequestLogs(gateway.gateway.database.db, rows.slice(start, start + 70));
      for (const [index, trace] of ['trace-1', 'trace-2', 'trace-3', 'trace-7', 'trace-7'].entries()) {
        const given = { trace, value: index * 3 - 4, weight: index % 2 ? 0.5 : 1 };
        const answer = await call('POST', '/feedback', keyA, { trace_id: trace, value: given.value, ...(index % 2 ? { weight: given.weight } : {}) });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        feedbackGiven.push(given);
      }
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    const get = async (path: string, query: Record<string, string>, key = keyA) => {
      const response = await call('GET', `/analytics/${path}?${new URLSearchParams(query)}`, key);
      assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
      return response.body;
    };
    const within = (from: number, to: number, extra: (row: Row) => boolean = () => true) =>
      rows.filter((row) => row.workspaceId === A && row.createdAt.getTime() >= from && row.createdAt.getTime() <= to && extra(row));
    const range = (from: number, to: number) => ({ time_of_generation_min: new Date(from).toISOString(), time_of_generation_max: new Date(to).toISOString() });

    test('the rollups equal the sums of the raw rows', async () => {
      const db = gateway.gateway.database.db;
      const [rolled] = rowsOf<Record<string, number>>(await db.execute(sql`select sum(requests)::float8 as requests, sum(errors)::float8 as errors,
        sum(cost)::float8 as cost, sum(saved_cost)::float8 as saved, sum(total_tokens)::float8 as tokens, sum(response_time_ms_sum)::float8 as ms,
        sum(fallback_rescues)::float8 as rescued, (select sum(h)::float8 from analytics_hourly, unnest(latency_histogram) h) as histogram from analytics_hourly`));
      close(rolled!.requests, rows.length, 'requests', 0);
      close(rolled!.errors, rows.filter((row) => !row.isSuccess).length, 'errors', 0);
      close(rolled!.cost, sum(rows, (row) => usd(row.cost)), 'cost', 1e-9);
      close(rolled!.saved, sum(rows, (row) => usd(row.savedCost)), 'saved cost', 1e-9);
      close(rolled!.tokens, sum(rows, (row) => row.totalTokens ?? 0), 'tokens', 0);
      close(rolled!.ms, sum(rows, (row) => row.responseTimeMs), 'latency', 0);
      close(rolled!.rescued, rows.filter((row) => row.lastUsedOptionIndex === '$.targets[1]').length, 'fallback rescues', 0);
      close(rolled!.histogram, rows.length, 'histogram counts', 0);
      const perHour = rowsOf<{ hour: number; requests: number }>(await db.execute(sql`select (extract(epoch from hour) * 1000)::float8 as hour,
        sum(requests)::float8 as requests from analytics_hourly group by hour`));
      for (const entry of perHour) close(entry.requests, rows.filter((row) => bucketOf(row.createdAt.getTime(), HOUR) === entry.hour).length, `hour ${entry.hour}`, 0);
      const [users] = rowsOf<{ requests: number }>(await db.execute(sql`select sum(requests)::float8 as requests from analytics_users_hourly`));
      close(users!.requests, rows.filter((row) => userOf(row) !== null).length, 'user requests', 0);
    });

    // a range inside two days (hourly buckets) starting and ending mid-hour, and one of three days (daily buckets)
    const ranges = () => [
      { name: 'hourly', from: base + 30 * 60_000 + 17_000, to: base + 40 * HOUR + 15 * 60_000, size: HOUR },
      { name: 'daily', from: base + 5 * HOUR + 1000, to: base + 3 * DAY + 2 * HOUR, size: DAY },
    ];

    for (const which of ['hourly', 'daily'] as const) {
      test(`traffic graphs (${which} buckets) equal the hand sums`, async () => {
        const { from, to, size } = ranges().find((entry) => entry.name === which)!;
        const R = within(from, to);
        const query = range(from, to);
        const buckets: number[] = [];
        for (let start = bucketOf(from, size); start <= to; start += size) buckets.push(start);
        const inBucket = (start: number) => R.filter((row) => bucketOf(row.createdAt.getTime(), size) === start);

        const requests = await get('graphs/requests', query);
        assert.equal(requests.object, 'analytics-graph');
        assert.equal(requests.summary.total, R.length);
        assert.deepEqual(requests.data_points.map((point: { timestamp: string }) => Date.parse(point.timestamp)), buckets, 'every bucket, empty ones too');
        requests.data_points.forEach((point: { total: number }, index: number) => assert.equal(point.total, inBucket(buckets[index]!).length));

        const cost = await get('graphs/cost', query);
        close(cost.summary.total, sum(R, (row) => usd(row.cost)) * 100, 'cost total');
        close(cost.summary.avg, (sum(R, (row) => usd(row.cost)) * 100) / R.length, 'cost avg');
        cost.data_points.forEach((point: { total: number }, index: number) => close(point.total, sum(inBucket(buckets[index]!), (row) => usd(row.cost)) * 100, 'bucket cost'));

        const tokens = await get('graphs/tokens', query);
        assert.equal(tokens.summary.total, sum(R, (row) => row.totalTokens ?? 0));
        close(tokens.summary.avg, sum(R, (row) => row.totalTokens ?? 0) / R.length, 'tokens avg');

        const errors = R.filter((row) => !row.isSuccess);
        assert.equal((await get('graphs/errors', query)).summary.total, errors.length);
        close((await get('graphs/errors/rate', query)).summary.rate, (errors.length / R.length) * 100, 'error rate');
        const stacks = await get('graphs/errors/stacks', query);
        assert.equal(stacks.summary.total, errors.length);
        stacks.data_points.forEach((point: { stats: Array<{ response_status_code: number; count: number }> }, index: number) => {
          for (const stat of point.stats) assert.equal(stat.count, inBucket(buckets[index]!).filter((row) => !row.isSuccess && row.status === stat.response_status_code).length);
          assert.equal(point.stats.reduce((total, stat) => total + stat.count, 0), inBucket(buckets[index]!).filter((row) => !row.isSuccess).length);
        });
        const codes = await get('graphs/errors/status-codes', query);
        const distinct = [...new Set(errors.map((row) => row.status))].sort();
        assert.equal(codes.summary.total_errors, errors.length);
        assert.equal(codes.summary.unique_error_codes, distinct.length);
        assert.deepEqual(codes.data_points, distinct.map((status) => ({ status_code: status, count: errors.filter((row) => row.status === status).length })));

        const rescued = await get('graphs/requests/rescued', query);
        const retried = R.filter((row) => row.isSuccess && (row.retryCount ?? 0) > 0);
        assert.equal(rescued.summary.retry, retried.length);
        assert.equal(rescued.summary.fallback, R.filter((row) => row.lastUsedOptionIndex === '$.targets[1]').length);
        for (const count of [1, 2]) {
          const reported = (rescued.data_points as Array<{ retry: Array<{ retry_success_count: number; count: number }> }>)
            .reduce((total, point) => total + (point.retry.find((entry) => entry.retry_success_count === count)?.count ?? 0), 0);
          assert.equal(reported, retried.filter((row) => row.retryCount === count).length, `rescued after ${count} retries`);
        }

        const hitRate = await get('graphs/cache/hit-rate', query);
        const hits = R.filter(isHit);
        assert.equal(hitRate.summary.total, hits.length);
        close(hitRate.summary.rate, (hits.length / R.length) * 100, 'hit rate');
        const last = hitRate.data_points.at(-1);
        close(last.cumulative_simple_cache_savings, sum(R.filter((row) => row.cacheStatus === 'HIT'), (row) => usd(row.savedCost)) * 100, 'simple savings');
        close(last.cumulative_semantic_cache_savings, sum(R.filter((row) => row.cacheStatus === 'SEMANTIC HIT'), (row) => usd(row.savedCost)) * 100, 'semantic savings');
        hitRate.data_points.forEach((point: { simple_hits: number; semantic_hits: number }, index: number) => {
          assert.equal(point.simple_hits, inBucket(buckets[index]!).filter((row) => row.cacheStatus === 'HIT').length);
          assert.equal(point.semantic_hits, inBucket(buckets[index]!).filter((row) => row.cacheStatus === 'SEMANTIC HIT').length);
        });

        const cacheLatency = await get('graphs/cache/latency', query);
        cacheLatency.data_points.forEach((point: { avg: number }, index: number) => {
          const bucketHits = inBucket(buckets[index]!).filter(isHit);
          close(point.avg, bucketHits.length ? sum(bucketHits, (row) => row.responseTimeMs) / bucketHits.length : 0, 'cache latency');
        });
        const summary = await get('summary/cache', query);
        const misses = R.filter((row) => row.cacheStatus === 'MISS');
        const hitMs = sum(hits, (row) => row.responseTimeMs) / hits.length;
        const missMs = sum(misses, (row) => row.responseTimeMs) / misses.length;
        assert.equal(summary.object, 'analytics-summary');
        assert.equal(summary.summary.hits, hits.length);
        assert.equal(summary.summary.total_requests, R.length);
        close(summary.summary.avg_latency, hitMs, 'hit latency');
        close(summary.summary.cache_speedup, ((missMs - Math.round(hitMs * 100) / 100) / (Math.round(missMs * 100) / 100)) * 100, 'speed-up', 0.05);

        const latency = await get('graphs/latency', query);
        close(latency.summary.avg, sum(R, (row) => row.responseTimeMs) / R.length, 'latency avg');
        for (const p of [50, 90, 99] as const) {
          const truth = nearestRank(R.map((row) => row.responseTimeMs), p);
          const estimate = latency.summary[`p${p}`] as number;
          assert.ok(Math.abs(estimate - truth) <= truth * 0.2 + 2, `p${p}: ${estimate} estimates ${truth}`);
        }
      });
    }

    test('users graphs and groups count metadata._user, else the key\'s user', async () => {
      const { from, to } = ranges()[1]!;
      const R = within(from, to).filter((row) => userOf(row) !== null);
      const unique = new Set(R.map(userOf));
      const users = await get('graphs/users', range(from, to));
      assert.equal(users.summary.total, unique.size);
      const requests = await get('graphs/users/requests', range(from, to));
      assert.equal(requests.summary.total, R.length);
      assert.equal(requests.summary.unique, unique.size);
      close(requests.summary.avg, R.length / unique.size, 'requests per user');
      const group = await get('groups/users', range(from, to));
      assert.equal(group.total, unique.size);
      for (const entry of group.data) {
        const mine = R.filter((row) => userOf(row) === entry.user);
        assert.equal(entry.requests, String(mine.length));
        close(Number(entry.cost), sum(mine, (row) => usd(row.cost)) * 100, `cost of ${entry.user}`);
      }
      // a model filter: the users rollup has no model, so the raw rows answer, and agree
      const filtered = await get('graphs/users/requests', { ...range(from, to), ai_org_model: 'openai__gpt-4o' });
      assert.equal(filtered.summary.total, R.filter((row) => row.model === 'gpt-4o').length);
    });

    test('groups by model and by a metadata key', async () => {
      const { from, to } = ranges()[1]!;
      const R = within(from, to);
      const models = await get('groups/ai-models', range(from, to));
      assert.equal(models.total, 2);
      for (const entry of models.data) assert.equal(entry.requests, String(R.filter((row) => row.model === entry.ai_model).length));
      const page = await get('groups/ai-models', { ...range(from, to), page_size: '1', current_page: '1' });
      assert.equal(page.data.length, 1);
      assert.equal(page.data[0].ai_model, models.data[1].ai_model);

      const teams = await get('groups/metadata/team', range(from, to));
      assert.equal(teams.total, 2);
      for (const entry of teams.data) {
        const mine = R.filter((row) => (row.metadata as Record<string, string>).team === entry.metadata_value);
        assert.equal(entry.requests, String(mine.length));
        close(Number(entry.cost), sum(mine, (row) => usd(row.cost)) * 100, 'team cost');
        close(entry.avg_tokens, sum(mine, (row) => row.totalTokens ?? 0) / mine.length, 'team tokens');
        assert.equal(Date.parse(entry.last_seen), Math.max(...mine.map((row) => row.createdAt.getTime())));
        const withFeedback = mine.filter((row) => feedbackGiven.some((given) => given.trace === row.traceId));
        assert.equal(entry.requests_with_feedback, withFeedback.length);
      }
    });

    test('filters: rollup keys and raw-only filters agree with the hand sums', async () => {
      const { from, to } = ranges()[1]!;
      const cases: Array<[Record<string, string>, (row: Row) => boolean]> = [
        [{ ai_org_model: 'anthropic__claude-3' }, (row) => row.model === 'claude-3'],
        [{ status_code: '500,429' }, (row) => row.status === 500 || row.status === 429],
        [{ api_key_ids: rows[0]!.apiKeyId! }, (row) => row.apiKeyId === rows[0]!.apiKeyId],
        [{ metadata: JSON.stringify({ team: 'search' }) }, (row) => (row.metadata as Record<string, string>).team === 'search'],
        [{ cost_min: '0.05', cost_max: '0.1' }, (row) => usd(row.cost) * 100 >= 0.05 && usd(row.cost) * 100 <= 0.1 && row.cost !== null],
        [{ trace_id: 'trace-1,trace-2,trace-3' }, (row) => ['trace-1', 'trace-2', 'trace-3'].includes(row.traceId)],
        [{ span_id: 'span-1' }, (row) => row.spanId === 'span-1'],
        [{ prompt_token_min: '30', completion_token_max: '10' }, (row) => (row.promptTokens ?? 0) >= 30 && row.completionTokens !== null && row.completionTokens! <= 10],
        [{ total_units_max: '40' }, (row) => row.totalTokens! <= 40],
        [{ weighted_feedback_min: '0' }, (row) => feedbackGiven.some((given) => given.trace === row.traceId && given.value * given.weight >= 0)],
      ];
      for (const [filter, keep] of cases) {
        const R = within(from, to, keep);
        const answer = await get('graphs/requests', { ...range(from, to), ...filter });
        assert.equal(answer.summary.total, R.length, JSON.stringify(filter));
        const cost = await get('graphs/cost', { ...range(from, to), ...filter });
        close(cost.summary.total, sum(R, (row) => usd(row.cost)) * 100, `cost with ${JSON.stringify(filter)}`);
      }
    });

    test('feedback graphs: counts, scores, weighted average, by model', async () => {
      const query = { time_of_generation_min: new Date(base).toISOString(), time_of_generation_max: new Date(Date.now() + 60_000).toISOString() };
      const total = await get('graphs/feedbacks', query);
      assert.equal(total.summary.total, feedbackGiven.length);
      assert.equal((total.data_points as Array<{ total: number }>).reduce((count, point) => count + point.total, 0), feedbackGiven.length);
      const scores = await get('graphs/feedbacks/scores', query);
      const values = [...new Set(feedbackGiven.map((given) => given.value))].sort((a, b) => a - b);
      assert.deepEqual(scores.data_points, values.map((value) => ({ score: value, total: feedbackGiven.filter((given) => given.value === value).length })));
      const weighted = await get('graphs/feedbacks/weighted', query);
      close(weighted.summary.avg, feedbackGiven.reduce((total, given) => total + given.value * given.weight, 0) / feedbackGiven.length, 'weighted avg');
      const models = await get('graphs/feedbacks/ai-models', query);
      const modelOf = (trace: string) => rows.find((row) => row.traceId === trace)!.model;
      for (const point of models.data_points) {
        const mine = feedbackGiven.filter((given) => modelOf(given.trace) === point.ai_model);
        assert.equal(point.total, mine.length);
        close(point.avg_weighted_feedback, mine.reduce((total, given) => total + given.value * given.weight, 0) / mine.length, 'model feedback');
      }
      const onModel = await get('graphs/feedbacks', { ...query, ai_org_model: 'openai__gpt-4o' });
      assert.equal(onModel.summary.total, feedbackGiven.filter((given) => modelOf(given.trace) === 'gpt-4o').length);
    });

    test('scoping: a workspace key sees its workspace whatever it names; an admin key names one, or gets the default', async () => {
      const { from, to } = ranges()[1]!;
      const inB = rows.filter((row) => row.workspaceId === B && row.createdAt.getTime() >= from && row.createdAt.getTime() <= to).length;
      assert.equal((await get('graphs/requests', { ...range(from, to), workspace_slug: 'ws-analytics-b' })).summary.total, within(from, to).length);
      assert.equal((await get('graphs/requests', { ...range(from, to), workspace_slug: 'ws-analytics-b' }, gateway.adminKey)).summary.total, inB);
      assert.equal((await get('graphs/requests', { ...range(from, to), workspace_slug: A }, gateway.adminKey)).summary.total, within(from, to).length);
      assert.equal((await get('graphs/requests', range(from, to), gateway.adminKey)).summary.total, 0, 'the default workspace has no rows');
      const unknown = await call('GET', `/analytics/graphs/requests?workspace_slug=ws-nope`, gateway.adminKey);
      assert.equal(unknown.status, 404);
    });

    test('bad filters are 400s naming the parameter, and analytics.view is required', async () => {
      for (const [query, param] of [
        ['time_of_generation_min=yesterday', 'time_of_generation_min'],
        ['time_of_generation_min=2026-01-02T00:00:00Z&time_of_generation_max=2026-01-01T00:00:00Z', 'time_of_generation_max'],
        ['cost_min=-1', 'cost_min'],
        ['status_code=abc', 'status_code'],
        ['api_key_ids=not-a-uuid', 'api_key_ids'],
        ['metadata=[1]', 'metadata'],
        ['ai_org_model=gpt-4o', 'ai_org_model'],
        ['weighted_feedback_min=11', 'weighted_feedback_min'],
        ['page_size=0', 'page_size'],
      ] as const) {
        const response = await call('GET', `/analytics/groups/ai-models?${query}`, keyA);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.error.param, param, query);
      }
      const limited = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'no analytics', scopes: ['completions.write'], workspace_id: A })).body.key;
      const denied = await call('GET', '/analytics/graphs/requests', limited);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'missing_scope');
    });
  });
}
