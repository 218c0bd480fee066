/**
 * GET /audit-logs with the reference's query parameters all optional: the organisation defaults to the caller's,
 * the window to the last 30 days (one bound given: the other is 30 days from it, or now).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { auditLogs } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

for (const backend of testBackends()) {
  describe(`audit logs [${backend.name}]`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    /** request ids of records planted at known ages */
    const planted = { tenDays: randomUUID(), fortyDays: randomUUID(), otherOrganisation: randomUUID() };

    before(async () => {
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const now = Date.now();
      const record = (requestId: string, ageMs: number, organisation = organisationId) => ({
        organisationId: organisation,
        timestamp: new Date(now - ageMs),
        userType: 'api_key',
        action: 'workspaces.update',
        resourceType: 'workspace',
        method: 'PUT',
        uri: '/v1/admin/workspaces/default',
        requestId,
        responseStatusCode: 200,
        outcome: 'success',
      });
      await gateway.gateway.database.db.insert(auditLogs).values([
        record(planted.tenDays, 10 * DAY_MS),
        record(planted.fortyDays, 40 * DAY_MS),
        record(planted.otherOrganisation, DAY_MS, randomUUID()),
      ]);
    });

    after(() => closeAll(() => gateway?.close()));

    async function requestIds(query: string): Promise<string[]> {
      const response = await call('GET', `/audit-logs${query}&page_size=100`, gateway.adminKey);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.data.map((row: { request_id: string }) => row.request_id);
    }

    test('no query at all: 200 with the caller\'s organisation\'s records of the last 30 days', async () => {
      const created = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'audited', scopes: ['completions.write'] });
      assert.equal(created.status, 200);
      const response = await call('GET', '/audit-logs', gateway.adminKey);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.object, 'list');
      const rows: Array<{ organisation_id: string; resource_id: string; request_id: string }> = response.body.data;
      assert.ok(rows.every((row) => row.organisation_id === gateway.gateway.bootstrap.organisation.id), 'only the caller\'s organisation');
      assert.ok(rows.some((row) => row.resource_id === created.body.id), 'the call just made is listed');
      const ids = rows.map((row) => row.request_id);
      assert.ok(ids.includes(planted.tenDays), 'ten days ago is inside the default window');
      assert.ok(!ids.includes(planted.fortyDays), 'forty days ago is outside it');
      assert.ok(!ids.includes(planted.otherOrganisation), 'another organisation\'s record is never listed');
    });

    test('only start_time: everything from then until now', async () => {
      const ids = await requestIds(`?start_time=${new Date(Date.now() - 50 * DAY_MS).toISOString()}`);
      assert.ok(ids.includes(planted.tenDays));
      assert.ok(ids.includes(planted.fortyDays));
    });

    test('only end_time: the 30 days before it', async () => {
      const ids = await requestIds(`?end_time=${new Date(Date.now() - 35 * DAY_MS).toISOString()}`);
      const plantedIds: string[] = Object.values(planted);
      assert.deepEqual(ids.filter((id) => plantedIds.includes(id)), [planted.fortyDays]);
    });

    test('the reference\'s parameters keep working, organisation_id included', async () => {
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const start = new Date(Date.now() - 11 * DAY_MS).toISOString();
      const end = new Date(Date.now() - 9 * DAY_MS).toISOString();
      const ids = await requestIds(`?organisation_id=${organisationId}&start_time=${start}&end_time=${end}&method=PUT&action=workspaces.update`);
      assert.deepEqual(ids, [planted.tenDays]);
    });

    test('bad values are 400s naming them; another organisation is a 404', async () => {
      const cases: Array<[string, string]> = [
        ['?start_time=yesterday', 'start_time'],
        ['?end_time=2024-13-45T00:00:00Z', 'end_time'],
        [`?start_time=${new Date().toISOString()}&end_time=${new Date(Date.now() - DAY_MS).toISOString()}`, 'end_time'],
        ['?method=PATCH', 'method'],
      ];
      for (const [query, param] of cases) {
        const response = await call('GET', `/audit-logs${query}`, gateway.adminKey);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      }
      assert.equal((await call('GET', `/audit-logs?organisation_id=${randomUUID()}`, gateway.adminKey)).status, 404);
    });
  });
}
