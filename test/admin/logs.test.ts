/**
 * The Logs group over HTTP, on every back-end: custom logs (POST /logs: bodies, masking, caps, validation), one log
 * (GET /logs/{logId}), the list with every filter and cursor pages, workspace isolation, scope denials (audited).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { hashedValue } from '../../src/logging/log-headers.ts';
import { DEFAULT_BODY_CAP } from '../../src/logging/log-bodies.ts';
import { exportPageQuery, inIndexOrder, listLogsQuery, type LogCursor, type LogFilter } from '../../src/storage/repositories/log-queries.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { auditLogs, requestLogs } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const ORG_MASKED = 'x-org-secret';
const LOG_SCOPES = ['logs.list', 'logs.view', 'logs.write'];
/** the seeded filter rows live in this window, far from anything the tests insert now */
const T0 = Date.parse('2021-03-04T05:06:07.000Z');
const WINDOW = `start_time=${new Date(T0).toISOString()}&end_time=${new Date(T0 + 60_000).toISOString()}`;

for (const backend of testBackends()) {
  describe(`logs on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let A: string;
    let B: string;
    const keys = {} as Record<'svcA' | 'svcB' | 'noScopes', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;
    /** the seeded filter rows, by name */
    const seeded: Record<string, string> = {};

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }

    function row(overrides: Partial<NewRequestLogRow> & { createdAt: Date }): NewRequestLogRow {
      return {
        id: randomUUID(), organisationId: orgId(), workspaceId: A, traceId: randomUUID(), route: 'chat', method: 'POST', path: '/v1/chat/completions',
        status: 200, isSuccess: true, responseTimeMs: 10, ...overrides,
      };
    }

    before(async () => {
      gateway = await startBackendGateway(backend, { env: { ORGANISATION_HEADERS_TO_MASK: ORG_MASKED.toUpperCase() } });
      call = adminClient(gateway.baseURL);
      A = (await ok('POST', '/admin/workspaces', { name: 'Logs A', slug: 'logs-a' })).id;
      B = (await ok('POST', '/admin/workspaces', { name: 'Logs B', slug: 'logs-b' })).id;
      keys.svcA = await ok('POST', '/api-keys/workspace/service', { name: 'svc A', scopes: LOG_SCOPES, workspace_id: A });
      keys.svcB = await ok('POST', '/api-keys/workspace/service', { name: 'svc B', scopes: LOG_SCOPES, workspace_id: B });
      keys.noScopes = await ok('POST', '/api-keys/workspace/service', { name: 'no log scopes', scopes: ['completions.write'], workspace_id: A });
      const [k1, k2, k3] = [randomUUID(), randomUUID(), randomUUID()];
      seeded.apiKey2 = k2;
      const at = (seconds: number) => new Date(T0 + seconds * 1000);
      const rows: Record<string, NewRequestLogRow> = {
        r1: row({ createdAt: at(1), apiKeyId: k1, provider: 'openai', model: 'gpt-4o', traceId: 'trace-one', spanId: 'span-1', metadata: { team: 'search', env: 'prod' }, cost: '0.010000000000', responseTimeMs: 100, cacheStatus: 'HIT' }),
        r2: row({ createdAt: at(2), apiKeyId: k2, provider: 'anthropic', model: 'claude-3', status: 429, isSuccess: false, traceId: 'trace-two', spanId: 'span-2', metadata: { team: 'ads' }, cost: '0.050000000000', responseTimeMs: 900, cacheStatus: 'MISS' }),
        r3: row({ createdAt: at(3), workspaceId: B, apiKeyId: k3, provider: 'openai', model: 'gpt-4o-mini', status: 500, isSuccess: false, traceId: 'trace-one', metadata: { team: 'search' }, cost: null, responseTimeMs: 5000, cacheStatus: 'DISABLED' }),
        r4: row({ createdAt: at(4), provider: 'groq', model: 'llama', cost: '0.001000000000', responseTimeMs: 50, cacheStatus: 'SEMANTIC HIT' }),
        otherOrganisation: row({ createdAt: at(5), organisationId: randomUUID(), workspaceId: randomUUID(), provider: 'openai', model: 'gpt-4o', traceId: 'trace-one' }),
      };
      for (const [name, value] of Object.entries(rows)) seeded[name] = value.id;
      await insertRequestLogs(db(), Object.values(rows));
    });

    after(async () => {
      await gateway?.close();
    });

    async function listedIds(query: string, key = gateway.adminKey): Promise<string[]> {
      const body = await ok('GET', `/logs?${WINDOW}&${query}`, undefined, key);
      assert.equal(body.object, 'list');
      return body.data.map((item: { id: string }) => item.id);
    }
    const names = (...which: string[]) => which.map((name) => seeded[name]);

    test('every filter of GET /logs, newest first, never another organisation\'s rows', async () => {
      const cases: Array<[string, string[]]> = [
        ['', ['r4', 'r3', 'r2', 'r1']],
        [`workspace_id=${A}`, ['r4', 'r2', 'r1']],
        ['workspace_id=logs-b', ['r3']],
        [`api_key_id=${seeded.apiKey2}`, ['r2']],
        ['provider=openai', ['r3', 'r1']],
        ['provider=openai,groq', ['r4', 'r3', 'r1']],
        ['model=gpt-4o', ['r1']],
        ['status=429,500', ['r3', 'r2']],
        ['trace_id=trace-one', ['r3', 'r1']],
        ['span_id=span-2', ['r2']],
        [`metadata=${encodeURIComponent('{"team":"search"}')}`, ['r3', 'r1']],
        [`metadata=${encodeURIComponent('{"team":"search","env":"prod"}')}`, ['r1']],
        ['cost_min=1', ['r2', 'r1']],
        ['cost_max=1', ['r4', 'r1']],
        ['cost_min=0.5&cost_max=4', ['r1']],
        ['latency_min=100&latency_max=1000', ['r2', 'r1']],
        ['cache_status=HIT', ['r1']],
        ['cache_status=semantic%20hit,MISS', ['r4', 'r2']],
        [`start_time=${new Date(T0 + 2000).toISOString()}&end_time=${new Date(T0 + 3000).toISOString()}`, ['r3', 'r2']],
      ];
      for (const [query, expected] of cases) {
        // the later start_time/end_time win over the window's (the last value of a repeated parameter is refused, so build it apart)
        const path = query.startsWith('start_time') ? `/logs?${query}` : `/logs?${WINDOW}${query ? `&${query}` : ''}`;
        const body = await ok('GET', path);
        assert.deepEqual(body.data.map((item: { id: string }) => item.id), names(...expected), query);
        assert.equal(body.next_cursor, null, query);
      }
      const [item] = (await ok('GET', `/logs?${WINDOW}&model=gpt-4o`)).data;
      assert.equal(item.cost, 1, 'USD 0.01 is 1 cent');
      assert.equal(item.ai_org, 'openai');
      assert.deepEqual(item.metadata, { team: 'search', env: 'prod' });
      for (const field of ['request', 'response', 'body', 'request_body', 'response_body', 'headers']) assert.ok(!(field in item), `no ${field} in a list item`);
    });

    test('a workspace key lists its own workspace only; naming another is a 404', async () => {
      assert.deepEqual(await listedIds('', keys.svcA.key), names('r4', 'r2', 'r1'));
      assert.deepEqual(await listedIds('', keys.svcB.key), names('r3'));
      const other = await call('GET', `/logs?workspace_id=${A}`, keys.svcB.key);
      assert.equal(other.status, 404, JSON.stringify(other.body));
      assert.match(other.body.error.message, new RegExp(A));
    });

    test('each bad query value is a 400 naming its parameter', async () => {
      const bad: Array<[string, string]> = [
        ['start_time=yesterday', 'start_time'],
        [`start_time=${new Date(T0 + 5000).toISOString()}&end_time=${new Date(T0).toISOString()}`, 'end_time'],
        ['workspace_id=not%20a%20slug!', 'workspace_id'],
        ['api_key_id=nope', 'api_key_id'],
        ['status=abc', 'status'],
        ['status=200,', 'status'],
        ['metadata=%5B1%5D', 'metadata'],
        [`metadata=${encodeURIComponent('{"a":1}')}`, 'metadata'],
        ['metadata=%7Bbroken', 'metadata'],
        ['cost_min=-1', 'cost_min'],
        ['cost_max=abc', 'cost_max'],
        ['cost_min=5&cost_max=1', 'cost_max'],
        ['latency_min=-5', 'latency_min'],
        ['latency_max=1.5', 'latency_max'],
        ['cache_status=WARM', 'cache_status'],
        ['cursor=garbage!', 'cursor'],
        [`cursor=${Buffer.from('2021-01-01|x').toString('base64url')}`, 'cursor'],
        ['limit=0', 'limit'],
        ['limit=501', 'limit'],
        ['provider=a&provider=b', 'provider'],
      ];
      for (const [query, param] of bad) {
        const response = await call('GET', `/logs?${query}`, gateway.adminKey);
        assert.equal(response.status, 400, `${query}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, param, query);
      }
    });

    test('cursor pages: every row once, newest first, ties on the time broken by id', async () => {
      const base = Date.parse('2022-06-01T00:00:00.000Z');
      const tag = randomUUID();
      // 120 rows on 40 distinct milliseconds: three rows share each time
      const rows = Array.from({ length: 120 }, (_, index) => row({ createdAt: new Date(base + Math.floor(index / 3)), metadata: { paging: tag } }));
      await insertRequestLogs(db(), rows);
      const filter = `metadata=${encodeURIComponent(JSON.stringify({ paging: tag }))}&limit=50`;
      const seen: Array<{ id: string; created_at: string }> = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const body: { data: Array<{ id: string; created_at: string }>; next_cursor: string | null } = await ok('GET', `/logs?${filter}${cursor ? `&cursor=${cursor}` : ''}`);
        sizes.push(body.data.length);
        seen.push(...body.data);
        cursor = body.next_cursor;
      } while (cursor);
      assert.deepEqual(sizes, [50, 50, 20]);
      assert.equal(new Set(seen.map((item) => item.id)).size, 120, 'no row twice');
      assert.deepEqual(new Set(seen.map((item) => item.id)), new Set(rows.map((item) => item.id)), 'every row');
      const expected = [...rows].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (y.id < x.id ? -1 : 1)).map((item) => item.id);
      assert.deepEqual(seen.map((item) => item.id), expected, 'newest first, then by id');
      // a page over exactly the rows left has no next cursor
      const exact = await ok('GET', `/logs?${filter.replace('limit=50', 'limit=120')}`);
      assert.equal(exact.data.length, 120);
      assert.equal(exact.next_cursor, null);
    });

    test('POST /logs stores a custom log; GET /logs/{id} shows it whole, masked', async () => {
      const traceId = `custom-${randomUUID()}`;
      const log = {
        request: {
          url: 'https://api.example.com/v1/chat/completions?x=1',
          method: 'post',
          headers: { Authorization: 'Bearer sk-live', 'X-Org-Secret': 'org-value', 'x-listed': 'listed-value', 'x-plain': 'visible', 'x-gateway-sensitive-headers': 'x-listed', 'x-gateway-provider': 'openai' },
          body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
        },
        response: { status: 201, headers: { 'x-call-listed': 'call-value', 'content-type': 'application/json' }, body: { id: 'r', usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }, response_time: 321 },
        metadata: { trace_id: traceId, span_id: 'sp', span_name: 'step', team: 'custom' },
      };
      const response = await call('POST', '/logs', keys.svcA.key, log);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.deepEqual(response.body, {});
      // the call's own x-gateway-sensitive-headers applies to what it logs
      const second = await fetch(`${gateway.baseURL}/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': keys.svcA.key, 'x-gateway-sensitive-headers': '["x-call-listed"]' },
        body: JSON.stringify({ ...log, metadata: { trace_id: traceId } }),
      });
      assert.equal(second.status, 200, await second.text());

      const listed = await ok('GET', `/logs?trace_id=${traceId}`, undefined, keys.svcA.key);
      assert.equal(listed.data.length, 2);
      const older = listed.data[1];
      const whole = await ok('GET', `/logs/${older.id}`, undefined, keys.svcA.key);
      assert.equal(whole._id, older.id);
      assert.equal(whole.workspace_id, A);
      assert.deepEqual(whole.request.body, log.request.body);
      assert.deepEqual(whole.response.body, log.response.body);
      assert.equal(whole.request.url, log.request.url);
      assert.equal(whole.request.method, 'POST');
      assert.equal(whole.response.status, 201);
      assert.equal(whole.response.responseTime, 321);
      assert.equal(whole.response.lastUsedOptionJsonPath, '$');
      assert.equal(whole.request.headers.authorization, '********', 'a credential never appears');
      assert.equal(whole.request.headers['x-org-secret'], hashedValue('org-value'), 'ORGANISATION_HEADERS_TO_MASK: hashed');
      assert.equal(whole.request.headers['x-listed'], hashedValue('listed-value'), 'the logged request\'s x-gateway-sensitive-headers: hashed');
      assert.equal(whole.request.headers['x-plain'], 'visible');
      assert.equal(whole.request.gatewayHeaders['x-gateway-provider'], 'openai');
      assert.equal(whole.response.headers['x-call-listed'], 'call-value', 'not listed by the first call');
      const metrics = whole.metrics;
      assert.equal(metrics.trace_id, traceId);
      assert.equal(metrics.span_id, 'sp');
      assert.equal(metrics.span_name, 'step');
      assert.equal(metrics.ai_model, 'gpt-4o');
      assert.equal(metrics.ai_org, 'openai');
      assert.equal(metrics.is_custom, true);
      assert.equal(metrics.route, 'custom');
      assert.equal(metrics.is_success, true);
      assert.deepEqual([metrics.req_units, metrics.res_units, metrics.total_units], [3, 4, 7]);
      assert.deepEqual([...metrics['metadata.key']].sort(), ['span_id', 'span_name', 'team', 'trace_id']);
      assert.equal(metrics['metadata.value'][metrics['metadata.key'].indexOf('team')], 'custom', 'keys and values pair up');
      assert.deepEqual(metrics.attempts, []);
      assert.equal(metrics.bodies_truncated, false);
      const newer = await ok('GET', `/logs/${listed.data[0].id}`, undefined, keys.svcA.key);
      assert.equal(newer.response.headers['x-call-listed'], hashedValue('call-value'), 'the POST\'s own x-gateway-sensitive-headers: hashed');
      const [stored] = await db().select({ isCustom: requestLogs.isCustom, apiKeyId: requestLogs.apiKeyId }).from(requestLogs).where(eq(requestLogs.id, older.id));
      assert.deepEqual(stored, { isCustom: true, apiKeyId: keys.svcA.id });
      const audit = await db().select().from(auditLogs).where(and(eq(auditLogs.action, 'logs.write'), eq(auditLogs.apiKeyId, keys.svcA.id), eq(auditLogs.outcome, 'success')));
      assert.ok(audit.length >= 2, 'each insert is audited');
    });

    test('POST /logs takes an array of up to 100; a trace id is generated when none is given; big bodies are cut and marked', async () => {
      const tag = randomUUID();
      const log = (index: number) => ({ request: { url: '/v1/x', body: { index } }, response: { body: { ok: true } }, metadata: { batch: tag } });
      await ok('POST', '/logs', Array.from({ length: 3 }, (_, index) => log(index)), keys.svcA.key);
      const listed = await ok('GET', `/logs?metadata=${encodeURIComponent(JSON.stringify({ batch: tag }))}`, undefined, keys.svcA.key);
      assert.equal(listed.data.length, 3);
      assert.equal(new Set(listed.data.map((item: { trace_id: string }) => item.trace_id)).size, 3, 'a fresh trace id each');

      const big = { request: { url: '/v1/big', body: { text: 'x'.repeat(DEFAULT_BODY_CAP + 100) } }, response: { body: { ok: true } }, metadata: { trace_id: `big-${tag}` } };
      await ok('POST', '/logs', big, keys.svcA.key);
      const [item] = (await ok('GET', `/logs?trace_id=big-${tag}`, undefined, keys.svcA.key)).data;
      const whole = await ok('GET', `/logs/${item.id}`, undefined, keys.svcA.key);
      assert.equal(whole.bodies_truncated, true);
      assert.equal(typeof whole.request.body, 'string', 'a cut body is no longer JSON: its text is shown');
      assert.equal(Buffer.byteLength(whole.request.body), DEFAULT_BODY_CAP);
      assert.deepEqual(whole.response.body, { ok: true });
    });

    test('POST /logs: each bad body is a 400 naming the field', async () => {
      const good = { request: { url: '/v1/x', body: {} }, response: { body: {} } };
      const bad: Array<[unknown, string]> = [
        [{ response: good.response }, 'request'],
        [{ request: { body: {} }, response: good.response }, 'request.url'],
        [{ request: { url: '/v1/x' }, response: good.response }, 'request.body'],
        [{ request: good.request, response: {} }, 'response.body'],
        [{ ...good, response: { body: {}, status: 99 } }, 'response.status'],
        [{ ...good, metadata: { team: 1 } }, 'metadata.team'],
        [[good, { request: good.request, response: {} }], '[1].response.body'],
        [[], 'body'],
        [Array.from({ length: 101 }, () => good), 'body'],
        ['text', 'body'],
      ];
      for (const [body, param] of bad) {
        const response = await call('POST', '/logs', keys.svcA.key, body);
        assert.equal(response.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, param, JSON.stringify(body).slice(0, 80));
      }
      const header = await fetch(`${gateway.baseURL}/logs`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-gateway-api-key': keys.svcA.key, 'x-gateway-sensitive-headers': 'bad header!' }, body: JSON.stringify(good),
      });
      assert.equal(header.status, 400);
      assert.equal(((await header.json()) as { error: { param: string } }).error.param, 'x-gateway-sensitive-headers');
    });

    test('GET /logs/{logId}: a malformed id is a 400, an unknown or hidden one a 404 naming it', async () => {
      const malformed = await call('GET', '/logs/not-a-uuid', gateway.adminKey);
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error.param, 'logId');
      const unknown = randomUUID();
      const missing = await call('GET', `/logs/${unknown}`, gateway.adminKey);
      assert.equal(missing.status, 404);
      assert.match(missing.body.error.message, new RegExp(unknown));
      // B's log: hidden from A's key, seen by B's and by the admin key; another organisation's from everyone
      const hidden = await call('GET', `/logs/${seeded.r3}`, keys.svcA.key);
      assert.equal(hidden.status, 404);
      assert.match(hidden.body.error.message, new RegExp(seeded.r3!));
      assert.equal((await ok('GET', `/logs/${seeded.r3}`, undefined, keys.svcB.key)).id, seeded.r3);
      assert.equal((await ok('GET', `/logs/${seeded.r3}`)).metrics.cost, null, 'an unknown cost stays null');
      assert.equal((await call('GET', `/logs/${seeded.otherOrganisation}`, gateway.adminKey)).status, 404);
    });

    test('denials: each route without its scope is a 403 naming it (audited); no key is a 401', async () => {
      const denied: Array<[string, string, string, unknown?]> = [
        ['GET', '/logs', 'logs.list'],
        ['GET', `/logs/${seeded.r1}`, 'logs.view'],
        ['POST', '/logs', 'logs.write', { request: { url: '/v1/x', body: {} }, response: { body: {} } }],
      ];
      for (const [method, path, scope, body] of denied) {
        const before = await db().select().from(auditLogs).where(and(eq(auditLogs.action, scope), eq(auditLogs.apiKeyId, keys.noScopes.id), eq(auditLogs.outcome, 'denied')));
        const response = await call(method, path, keys.noScopes.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.match(response.body.error.message, new RegExp(scope.replace('.', '\\.')));
        const afterRows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, scope), eq(auditLogs.apiKeyId, keys.noScopes.id), eq(auditLogs.outcome, 'denied')));
        assert.equal(afterRows.length, before.length + 1, `${scope} denial audited`);
        assert.equal((await call(method, path, undefined, body)).status, 401);
      }
      // a key with only logs.view reads one log but cannot list
      const viewer = await ok('POST', '/api-keys/workspace/service', { name: 'viewer', scopes: ['logs.view'], workspace_id: A });
      assert.equal((await ok('GET', `/logs/${seeded.r1}`, undefined, viewer.key)).id, seeded.r1);
      assert.equal((await call('GET', '/logs', viewer.key)).status, 403);
    });
  });
}

if (process.env.TEST_DATABASE_URL) {
  describe('log queries on postgres use the indexes', () => {
    let gateway: TestGateway;
    before(async () => {
      gateway = await startBackendGateway(testBackends().find((backend) => backend.name === 'postgres')!);
    });
    after(async () => {
      await gateway?.close();
    });

    test('the list and the export, by organisation, workspace, trace and below a cursor: index scans, no sequential scan of the log, pages read in the index order', async () => {
      const db = gateway.gateway.database.db;
      const organisations = [gateway.gateway.bootstrap.organisation.id, randomUUID(), randomUUID(), randomUUID()];
      const workspace = randomUUID();
      // 200k rows of four organisations over a day, two workspaces each
      await db.execute(sql`
        insert into request_logs (id, organisation_id, workspace_id, created_at, trace_id, route, method, path, status, is_success, response_time_ms)
        select gen_random_uuid(), (${`{${organisations.join(',')}}`}::uuid[])[1 + g % 4], case when g % 2 = 0 then ${workspace}::uuid else gen_random_uuid() end,
          now() - g * interval '400 milliseconds', 'trace-' || g, 'chat', 'POST', '/v1/chat/completions', 200, true, 5
        from generate_series(1, 200000) g`);
      await db.execute(sql`analyze request_logs`);
      const organisationId = organisations[0]!;
      const cursor = { createdAt: new Date(Date.now() - 3_600_000).toISOString().replace('Z', '000Z'), id: randomUUID() };
      const filters: Array<[string, LogFilter, LogCursor | undefined]> = [
        ['organisation', { organisationId }, undefined],
        ['organisation below a cursor', { organisationId }, cursor],
        ['workspace', { organisationId, workspaceId: workspace }, undefined],
        ['workspace below a cursor', { organisationId, workspaceId: workspace }, cursor],
        ['trace', { organisationId, traceIds: ['trace-8'] }, undefined],
        ['time range', { organisationId, startTime: new Date(Date.now() - 7_200_000), endTime: new Date(Date.now() - 3_600_000) }, undefined],
        ['workspace and metadata below a cursor', { organisationId, workspaceId: workspace, metadata: { team: 'a' } }, cursor],
      ];
      type Explain = (filter: LogFilter, at: LogCursor | undefined) => Promise<unknown>;
      const explain = (query: { sql: string; params: unknown[] }, on = db) => on.execute(sql.raw(`explain ${interpolate(query.sql, query.params)}`));
      const queries: Array<[string, Explain]> = [
        ['list', (filter, at) => explain(listLogsQuery(db, filter, at, 51).toSQL())],
        // as the export's job runs it (exportPage)
        ['export', (filter, at) => inIndexOrder(db, filter, (tx) => explain(exportPageQuery(tx, filter, at, 1000, false).toSQL(), tx))],
      ];
      for (const [kind, explained] of queries) {
        for (const [label, filter, at] of filters) {
          // the list, one page, is left to the planner: a selective metadata filter is served best by collecting its
          // few rows and sorting them
          if (kind === 'list' && filter.metadata) continue;
          const { rows } = (await explained(filter, at)) as { rows: Array<{ 'QUERY PLAN': string }> };
          const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          // an empty partition (a day ahead) is read in full at no cost: only a scan of rows counts
          const sequential = [...plan.matchAll(/Seq Scan on (\S+).*rows=(\d+)/g)].filter((match) => Number(match[2]) > 1);
          assert.deepEqual(sequential.map((match) => match[1]), [], `${kind}, ${label}:\n${plan}`);
          assert.match(plan, /Index/, `${kind}, ${label}:\n${plan}`);
          // newest first, ties by id: the (…, created_at, id) indexes give that order, so a page stops at its limit
          // instead of sorting every older row (a trace's few rows may be sorted: its index is not in time order)
          if (!filter.traceIds) assert.doesNotMatch(plan, /(?:^|->)\s*(?:Incremental )?Sort\s+\(/m, `${kind}, ${label}:\n${plan}`);
        }
      }
    });
  });
}

/** A query's text with its parameters written in (EXPLAIN takes no bind parameters here): test data only. */
function interpolate(text: string, params: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_whole, index: string) => {
    const value = params[Number(index) - 1];
    return value instanceof Date ? `'${value.toISOString()}'` : `'${String(value).replace(/'/g, "''")}'`;
  });
}
