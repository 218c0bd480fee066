/**
 * The analytics groups by provider and by API key (ours, beside the reference's users, models and metadata groups),
 * on PGlite and the real PostgreSQL: a known data set written through insertRequestLogs (the rollups fill the real
 * way), every group checked against sums computed here from the same rows, on the rollup path (a range that starts
 * and ends mid-hour) and the raw path (a metadata filter). Also: a page past the last one reports the real total
 * for every group, the workspace scoping, and analytics.view being required.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { insertRequestLogs, type NewRequestLogRow } from '../../src/storage/repositories/request-logs.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const HOUR = 3_600_000;
const PROVIDERS = ['openai', 'anthropic', 'mistral-ai', 'groq'];

type Row = NewRequestLogRow & { createdAt: Date };
type Group = Record<string, unknown> & { requests: string; cost: string };

const usd = (value: string | null | undefined) => (value ? Number(value) : 0);

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 0.011, `${what}: ${actual} != ${expected}`);
}

for (const backend of testBackends()) {
  describe(`analytics groups by provider and API key on ${backend.name}`, () => {
    let gateway: TestGateway;
    let drop: () => Promise<void> = async () => {};
    let call: ReturnType<typeof adminClient>;
    let A: string;
    let keyA: { id: string; key: string };
    const named: Record<string, string> = {};
    let rows: Row[] = [];
    let base = 0;

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      const admin = gateway.adminKey;
      A = (await call('POST', '/admin/workspaces', admin, { name: 'Groups A', slug: 'ws-groups-a' })).body.id;
      const B = (await call('POST', '/admin/workspaces', admin, { name: 'Groups B', slug: 'ws-groups-b' })).body.id;
      keyA = (await call('POST', '/api-keys/workspace/service', admin, { name: 'svc A', scopes: [...ALL_SCOPES], workspace_id: A })).body;
      for (const name of ['batch jobs', 'chat app']) {
        named[(await call('POST', '/api-keys/workspace/service', admin, { name, scopes: ['completions.write'], workspace_id: A })).body.id] = name;
      }
      // two keys the gateway knows (named), one it never issued (a deleted key: no name), and none at all
      const keys = [...Object.keys(named), randomUUID(), null];
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      base = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR;
      for (let i = 0; i < 240; i++) {
        const status = i % 9 === 0 ? 502 : 200;
        rows.push({
          id: randomUUID(),
          organisationId,
          workspaceId: i % 6 === 5 ? B : A,
          apiKeyId: keys[(i * 7) % keys.length] ?? null,
          createdAt: new Date(base + ((i * 4447) % (24 * 60)) * 60_000 + (i % 50) * 1000),
          traceId: `trace-${i}`,
          route: 'chat',
          method: 'POST',
          path: '/v1/chat/completions',
          // a request refused before any provider was chosen has none
          provider: i % 17 === 0 ? null : PROVIDERS[(i * i) % PROVIDERS.length]!,
          model: `model-${i % 3}`,
          status,
          isSuccess: status === 200,
          responseTimeMs: 40 + (i % 90),
          retryCount: 0,
          cost: status === 200 ? (0.00013 * ((i % 11) + 1)).toFixed(6) : null,
          metadata: { team: i % 3 === 0 ? 'ads' : 'search', ...(i % 4 ? { _user: `user-${i % 5}` } : {}) },
          attempts: [],
        });
      }
      for (let start = 0; start < rows.length; start += 60) await insertRequestLogs(gateway.gateway.database.db, rows.slice(start, start + 60));
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    const get = async (path: string, query: Record<string, string>, key = keyA.key) => {
      const response = await call('GET', `/analytics/${path}?${new URLSearchParams(query)}`, key);
      assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
      return response.body as { object: string; total: number; data: Group[] };
    };
    // mid-hour edges: the whole hours come from the rollup, the edges from the raw rows
    const from = () => base + 2 * HOUR + 17 * 60_000 + 3000;
    const to = () => base + 21 * HOUR + 41 * 60_000;
    const range = () => ({ time_of_generation_min: new Date(from()).toISOString(), time_of_generation_max: new Date(to()).toISOString() });
    const within = (keep: (row: Row) => boolean = () => true) =>
      rows.filter((row) => row.workspaceId === A && row.createdAt.getTime() >= from() && row.createdAt.getTime() <= to() && keep(row));

    function checkGroups(answer: { total: number; data: Group[] }, R: Row[], field: 'provider' | 'apiKeyId', answerField: string) {
      const values = new Set(R.map((row) => row[field] ?? null));
      assert.equal(answer.total, values.size);
      assert.equal(answer.data.length, values.size);
      const requests = answer.data.map((group) => Number(group.requests));
      assert.deepEqual(requests, [...requests].sort((a, b) => b - a), 'most requests first');
      for (const group of answer.data) {
        assert.equal(group.object, 'analytics-group');
        const mine = R.filter((row) => (row[field] ?? null) === group[answerField]);
        assert.ok(mine.length > 0, `${String(group[answerField])} has rows`);
        assert.equal(group.requests, String(mine.length), `requests of ${String(group[answerField])}`);
        close(Number(group.cost), mine.reduce((total, row) => total + usd(row.cost), 0) * 100, `cost of ${String(group[answerField])}`);
      }
    }

    test('by provider: requests and cost per provider equal the hand sums (rollup path, and raw path with a metadata filter)', async () => {
      checkGroups(await get('groups/providers', range()), within(), 'provider', 'provider');
      const search = (row: Row) => (row.metadata as Record<string, string>).team === 'search';
      checkGroups(await get('groups/providers', { ...range(), metadata: JSON.stringify({ team: 'search' }) }), within(search), 'provider', 'provider');
      const failed = await get('groups/providers', { ...range(), status_code: '502' });
      checkGroups(failed, within((row) => row.status === 502), 'provider', 'provider');
    });

    test('by API key: requests and cost per key, with the key\'s name while it exists', async () => {
      const answer = await get('groups/api-keys', range());
      checkGroups(answer, within(), 'apiKeyId', 'api_key_id');
      for (const group of answer.data) {
        assert.equal(group.api_key_name, typeof group.api_key_id === 'string' ? (named[group.api_key_id] ?? null) : null, `name of ${String(group.api_key_id)}`);
      }
      const one = Object.keys(named)[0]!;
      const filtered = await get('groups/api-keys', { ...range(), api_key_ids: one });
      checkGroups(filtered, within((row) => row.apiKeyId === one), 'apiKeyId', 'api_key_id');
      assert.equal(filtered.data[0]!.api_key_name, named[one]);
    });

    test('pages: page two holds the rest; a page past the last one reports the real total for every group', async () => {
      const all = await get('groups/providers', range());
      const second = await get('groups/providers', { ...range(), page_size: '2', current_page: '1' });
      assert.deepEqual(second.data, all.data.slice(2, 4));
      assert.equal(second.total, all.total);
      for (const path of ['groups/providers', 'groups/api-keys', 'groups/ai-models', 'groups/users', 'groups/metadata/team']) {
        const full = await get(path, range());
        assert.ok(full.total > 0, path);
        const past = await get(path, { ...range(), page_size: '5', current_page: '40' });
        assert.deepEqual(past.data, [], path);
        assert.equal(past.total, full.total, `${path}: the total past the last page`);
      }
    });

    test('scoping and scope: an admin key names the workspace; analytics.view is required', async () => {
      const inB = rows.filter((row) => row.workspaceId !== A && row.createdAt.getTime() >= from() && row.createdAt.getTime() <= to());
      const answer = await get('groups/providers', { ...range(), workspace_slug: 'ws-groups-b' }, gateway.adminKey);
      assert.equal(answer.data.reduce((total, group) => total + Number(group.requests), 0), inB.length);
      const limited = (await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'no analytics', scopes: ['completions.write'], workspace_id: A })).body.key;
      for (const path of ['groups/providers', 'groups/api-keys']) {
        const denied = await call('GET', `/analytics/${path}`, limited);
        assert.equal(denied.status, 403, path);
        assert.equal(denied.body.error.code, 'missing_scope');
        const bad = await call('GET', `/analytics/${path}?api_key_ids=nope`, keyA.key);
        assert.equal(bad.status, 400, path);
        assert.equal(bad.body.error.param, 'api_key_ids');
      }
    });
  });
}
