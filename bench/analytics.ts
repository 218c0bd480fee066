/**
 * Analytics on a million rows: seeds 1,000,000 request-log rows into a fresh database on TEST_DATABASE_URL (one
 * INSERT ... SELECT over generate_series, then the rollups built from them with the same aggregate the batch insert
 * uses), then times each of the 21 analytics operations (the domain use cases, as the routes call them): the
 * median of 5 runs over a 30-day range, on the rollups, and again with a metadata filter, which reads the raw rows.
 * Run: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/analytics.ts
 * Not part of npm test.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Principal } from '../src/core/context.ts';
import { metadataGroup, modelsGroup, usersGroup } from '../src/domain/analytics/groups.ts';
import type { AnalyticsInput } from '../src/domain/analytics/inputs.ts';
import * as other from '../src/domain/analytics/other-graphs.ts';
import * as traffic from '../src/domain/analytics/traffic-graphs.ts';
import { openDatabase } from '../src/storage/database.ts';
import { migrate } from '../src/storage/migrate.ts';
import { ROLLUP_COLUMNS, rollupAggregate, usersAggregate } from '../src/storage/repositories/analytics-rollup.ts';

const ROWS = Number(process.env.ANALYTICS_BENCH_ROWS ?? 1_000_000);
const DAYS = 30;
const RUNS = 5;
const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl) throw new Error('Set TEST_DATABASE_URL (a PostgreSQL server) to run this benchmark.');

const name = `gw_bench_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const database = await openDatabase({ url: url.toString() });
const db = database.db;

try {
  await migrate(db);
  const organisationId = randomUUID();
  const workspaceId = randomUUID();
  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const start = end - DAYS * 86_400_000;

  let started = performance.now();
  await db.execute(sql`insert into request_logs (id, organisation_id, workspace_id, api_key_id, user_id, created_at, trace_id, span_id, route, method, path,
      provider, model, status, is_success, response_time_ms, cache_status, retry_count, prompt_tokens, completion_tokens, total_tokens, cost, saved_cost,
      metadata, attempts, last_used_option_index)
    select gen_random_uuid(), ${organisationId}::uuid, ${workspaceId}::uuid, ('00000000-0000-4000-8000-' || lpad((i % 20)::text, 12, '0'))::uuid, null,
      to_timestamp(${start / 1000} + (i::float8 / ${ROWS}) * ${DAYS * 86_400}), 'trace-' || i, null, 'chat', 'POST', '/v1/chat/completions',
      (array['openai', 'anthropic', 'openai', 'bedrock'])[i % 4 + 1], (array['gpt-4o', 'claude-3', 'gpt-4o-mini', 'llama-3'])[i % 4 + 1],
      case when i % 50 = 0 then 500 when i % 70 = 0 then 429 else 200 end, not (i % 50 = 0 or i % 70 = 0),
      (20 + (i::bigint * 7919) % 2000)::int, case when i % 5 = 0 then 'HIT' when i % 17 = 0 then 'SEMANTIC HIT' else 'MISS' end, case when i % 30 = 0 then 1 else 0 end,
      10 + i % 500, 5 + i % 300, 15 + i % 500 + i % 300, (i % 100) * 0.00001, case when i % 5 = 0 then 0.0002 else null end,
      jsonb_build_object('team', 'team-' || (i % 5), '_user', 'user-' || (i % 1000)), '[]'::jsonb, '$.targets[0]'
    from generate_series(1, ${ROWS}) as i`);
  const seeded = performance.now() - started;
  started = performance.now();
  const all = sql.raw('select * from request_logs');
  await db.execute(sql`insert into analytics_hourly (${sql.raw(ROLLUP_COLUMNS)}) ${rollupAggregate(all)}`);
  await db.execute(sql`insert into analytics_users_hourly (organisation_id, workspace_id, hour, user_key, requests, cost) ${usersAggregate(all)}`);
  await db.execute(sql`insert into analytics_users_daily (organisation_id, workspace_id, day, user_key, requests, cost) ${usersAggregate(all, 'day')}`);
  await db.execute(sql`analyze`);
  const rolled = performance.now() - started;
  console.log(`seeded ${ROWS} rows in ${(seeded / 1000).toFixed(1)} s; rollups built in ${(rolled / 1000).toFixed(1)} s`);

  const principal: Principal = {
    kind: 'api_key', keyId: randomUUID(), keyHash: '', keyType: 'workspace', subType: 'service', organisationId, workspaceId,
    scopes: ['analytics.view'], orgRole: null, workspaceRole: null, userId: null, expiresAt: null,
  };
  // mid-hour bounds: the rollup path also reads the raw rows of the two partial hours
  const base: AnalyticsInput = { from: new Date(start + 17 * 60_000), to: new Date(end - 13 * 60_000), filters: {} };
  const raw: AnalyticsInput = { ...base, filters: { metadata: { team: 'team-1' } } };
  const page = { offset: 0, limit: 50 };
  const now = new Date();
  const operations: Array<[string, (input: AnalyticsInput) => Promise<unknown>]> = [
    ...([
      ['graphs/requests', traffic.requestsGraph], ['graphs/cost', traffic.costGraph], ['graphs/latency', other.latencyGraph],
      ['graphs/tokens', traffic.tokensGraph], ['graphs/users', other.usersGraph], ['graphs/users/requests', other.userRequestsGraph],
      ['graphs/errors', traffic.errorsGraph], ['graphs/errors/rate', traffic.errorRateGraph], ['graphs/errors/stacks', traffic.errorStacksGraph],
      ['graphs/errors/status-codes', traffic.errorStatusCodesGraph], ['graphs/requests/rescued', traffic.rescuedGraph],
      ['graphs/cache/hit-rate', traffic.cacheHitRateGraph], ['graphs/cache/latency', other.cacheLatencyGraph],
      ['graphs/feedbacks', other.feedbacksGraph], ['graphs/feedbacks/scores', other.feedbackScoresGraph],
      ['graphs/feedbacks/weighted', other.weightedFeedbackGraph], ['graphs/feedbacks/ai-models', other.feedbackModelsGraph],
      ['summary/cache', traffic.cacheSummary],
    ] as const).map(([path, graph]) => [path, (input: AnalyticsInput) => graph(db, principal, input, now)] as [string, (input: AnalyticsInput) => Promise<unknown>]),
    ['groups/users', (input) => usersGroup(db, principal, input, page, now)],
    ['groups/ai-models', (input) => modelsGroup(db, principal, input, page, now)],
    ['groups/metadata/team', (input) => metadataGroup(db, principal, input, 'team', page, now)],
  ];

  const median = async (run: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const begin = performance.now();
      await run();
      times.push(performance.now() - begin);
    }
    return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
  };
  console.log(`| operation | 30 days, rollups (ms) | 30 days, metadata filter: raw rows (ms) |`);
  console.log(`|---|---:|---:|`);
  for (const [path, run] of operations) {
    const rollup = await median(() => run(base));
    const rawTime = await median(() => run(raw));
    console.log(`| ${path} | ${rollup.toFixed(1)} | ${rawTime.toFixed(1)} |`);
  }
} finally {
  await database.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
