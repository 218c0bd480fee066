/**
 * The Usage Limits Policies group over HTTP, on every back-end: each of the 7 routes with grants and denials,
 * validation naming the field, archive, entities with their live usage, resets, and the audit records.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { createBudgetCounters } from '../../src/limits/budgets-counters.ts';
import { currentWindow } from '../../src/limits/budgets-keys.ts';
import { periodStart } from '../../src/limits/budgets-period.ts';
import { saveUsageLimitEntities } from '../../src/storage/repositories/usage-limit-policies.ts';
import { auditLogs, usageLimitEntities, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `usage_limits_policies.${action}`);
const BASE = '/policies/usage-limits';
const POLICY = { conditions: [{ key: 'metadata._team', value: 'research' }], group_by: [{ key: 'metadata._user' }], type: 'tokens', credit_limit: 1000 };

for (const backend of testBackends()) {
  describe(`usage limits policies on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA' | 'unscoped', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });
    const create = async (body: Record<string, unknown> = {}, key?: string): Promise<string> => (await ok('POST', BASE, { ...POLICY, ...body }, key)).id;

    async function member(workspaceId: string, email: string, role: string) {
      const [row] = await db().insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email, role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
      return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
    }

    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400) {
      const response = await admin(method, path, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }

    /** Usage counted for a value key: the live counter (as the budgets step settles it) and the stored entity. */
    async function used(policyId: string, valueKey: string, units: number, limit = 1000) {
      const now = new Date();
      const { counter } = currentWindow({ kind: 'policy', policyId, valueKey }, null, now);
      await createBudgetCounters(gateway.gateway.kv).settle('seed', [{ counter, reserved: 0, actual: units, limit, threshold: -1, expiresAt: 0 }]);
      await saveUsageLimitEntities(db(), [{
        policyId, valueKey, currentUsage: String(units), status: units >= limit ? 'exhausted' : 'active',
        periodStart: periodStart(now, null), thresholdAlertedAt: null, exhaustedAlertedAt: units >= limit ? now : null,
      }]);
      const [row] = await db().select().from(usageLimitEntities).where(and(eq(usageLimitEntities.policyId, policyId), eq(usageLimitEntities.valueKey, valueKey)));
      return row!.id;
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
      keys.svcA = await createKey('workspace/service', { workspace_id: A });
      keys.svcB = await createKey('workspace/service', { workspace_id: B.id });
      keys.managerA = await member(A, 'manager@example.com', 'manager');
      keys.memberA = await member(A, 'member@example.com', 'member');
      keys.unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'no policy scopes', scopes: ['organisation_users.list'] });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('an admin key creates an organisation-wide policy; it reads back in the reference shape; it is audited', async () => {
      const created = await ok('POST', BASE, { ...POLICY, name: 'Research tokens', alert_threshold: 800, periodic_reset: 'monthly' });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'object']);
      assert.equal(created.object, 'usage_limits_policy');
      await audited('usage_limits_policies.create', 'success', created.id);
      const policy = await ok('GET', `${BASE}/${created.id}`);
      assert.equal(policy.object, 'usage_limits_policy');
      assert.equal(policy.name, 'Research tokens');
      assert.deepEqual(policy.conditions, POLICY.conditions);
      assert.deepEqual(policy.group_by, POLICY.group_by);
      assert.equal(policy.type, 'tokens');
      assert.equal(policy.credit_limit, 1000);
      assert.equal(policy.alert_threshold, 800);
      assert.equal(policy.periodic_reset, 'monthly');
      assert.equal(policy.status, 'active');
      assert.equal(policy.workspace_id, null);
      assert.equal(policy.organisation_id, gateway.gateway.bootstrap.organisation.id);
      const next = new Date(policy.next_usage_reset_at);
      assert.equal(next.getUTCDate(), 1, 'a monthly window starts on the 1st');
      assert.ok(next.getTime() > Date.now());
      assert.equal(policy.value_key_usage_map, undefined, 'only with include_usage');
      assert.equal(policy.on_store_failure, 'closed', 'a budget fails closed by default');
    });

    test('on_store_failure: set on create and on update, shown in reads and lists; anything else a 400 naming it', async () => {
      const id = await create({ on_store_failure: 'open' });
      assert.equal((await ok('GET', `${BASE}/${id}`)).on_store_failure, 'open');
      assert.deepEqual(await ok('PUT', `${BASE}/${id}`, { on_store_failure: 'closed' }), {}, 'it alone is something to update');
      assert.equal((await ok('GET', `${BASE}/${id}`)).on_store_failure, 'closed');
      await ok('PUT', `${BASE}/${id}`, { name: 'renamed' });
      assert.equal((await ok('GET', `${BASE}/${id}`)).on_store_failure, 'closed', 'a PUT that does not name it keeps it');
      await ok('PUT', `${BASE}/${id}`, { credit_limit: 1200, on_store_failure: 'open' });
      const listed = await ok('GET', `${BASE}?page_size=100`);
      const row = listed.data.find((policy: { id: string }) => policy.id === id);
      assert.deepEqual([row.credit_limit, row.on_store_failure], [1200, 'open']);
      const before = (await ok('GET', `${BASE}?page_size=100`)).total;
      for (const value of ['half', 'CLOSED', '', null, false, 0]) {
        await expectParam('POST', BASE, { ...POLICY, on_store_failure: value }, 'on_store_failure');
        await expectParam('PUT', `${BASE}/${id}`, { on_store_failure: value }, 'on_store_failure');
      }
      assert.equal((await ok('GET', `${BASE}?page_size=100`)).total, before, 'nothing created');
      assert.equal((await ok('GET', `${BASE}/${id}`)).on_store_failure, 'open', 'nothing changed');
    });

    test('a tokens credit_limit the stored column cannot hold is a 400 naming it, not a 500; the largest it holds is kept exactly', async () => {
      await expectParam('POST', BASE, { ...POLICY, credit_limit: 1e12 }, 'credit_limit');
      await expectParam('POST', BASE, { ...POLICY, credit_limit: 1e15 }, 'credit_limit');
      const id = await create({ credit_limit: 999_999_999_999 });
      assert.equal((await ok('GET', `${BASE}/${id}`)).credit_limit, 999_999_999_999);
      await expectParam('PUT', `${BASE}/${id}`, { credit_limit: 1e13 }, 'credit_limit');
    });

    test('a cumulative cost policy: no next reset; credit_limit keeps its decimals', async () => {
      const id = await create({ type: 'cost', credit_limit: 12.5, alert_threshold: 0.25 });
      const policy = await ok('GET', `${BASE}/${id}`);
      assert.equal(policy.credit_limit, 12.5);
      assert.equal(policy.alert_threshold, 0.25);
      assert.equal(policy.periodic_reset, null);
      assert.equal(policy.next_usage_reset_at, null);
    });

    test('workspace keys create in their own workspace (managers and service keys); members cannot; B is hidden', async () => {
      const bySvc = await create({}, keys.svcA.key);
      assert.equal((await ok('GET', `${BASE}/${bySvc}`)).workspace_id, A);
      const byManager = await create({ workspace_id: A }, keys.managerA.key);
      assert.equal((await ok('GET', `${BASE}/${byManager}`)).workspace_id, A);
      const denied = await call('POST', BASE, keys.memberA.key, POLICY);
      assert.equal(denied.status, 403);
      await audited('usage_limits_policies.create', 'denied');
      const hidden = await call('POST', BASE, keys.svcA.key, { ...POLICY, workspace_id: B.id });
      assert.equal(hidden.status, 404);
      const inB = await create({ workspace_id: B.slug });
      assert.equal((await ok('GET', `${BASE}/${inB}`)).workspace_id, B.id, 'a workspace slug is accepted');
    });

    test('create: bad input is a 400 naming the field, and nothing is stored', async () => {
      const before = (await ok('GET', `${BASE}?page_size=100`)).total;
      await expectParam('POST', BASE, { ...POLICY, conditions: [] }, 'conditions');
      await expectParam('POST', BASE, { ...POLICY, conditions: undefined }, 'conditions');
      await expectParam('POST', BASE, { ...POLICY, group_by: [] }, 'group_by');
      await expectParam('POST', BASE, { ...POLICY, conditions: [{ key: 'colour', value: 'red' }] }, 'conditions[0].key');
      await expectParam('POST', BASE, { ...POLICY, conditions: [{ key: 'metadata._user' }] }, 'conditions[0].value');
      await expectParam('POST', BASE, { ...POLICY, group_by: [{ key: 'metadata.' }] }, 'group_by[0].key');
      await expectParam('POST', BASE, { ...POLICY, type: 'requests' }, 'type');
      await expectParam('POST', BASE, { ...POLICY, credit_limit: -1 }, 'credit_limit');
      await expectParam('POST', BASE, { ...POLICY, credit_limit: 10.5 }, 'credit_limit');
      await expectParam('POST', BASE, { ...POLICY, type: 'cost', credit_limit: 1e12 }, 'credit_limit');
      await expectParam('POST', BASE, { ...POLICY, alert_threshold: 1000 }, 'alert_threshold');
      await expectParam('POST', BASE, { ...POLICY, alert_threshold: -5 }, 'alert_threshold');
      await expectParam('POST', BASE, { ...POLICY, periodic_reset: 'daily' }, 'periodic_reset');
      await expectParam('POST', BASE, { ...POLICY, name: 'x'.repeat(256) }, 'name');
      await expectParam('POST', BASE, { ...POLICY, organisation_id: MISSING }, 'organisation_id');
      await expectParam('POST', BASE, { ...POLICY, surprise: true }, 'surprise');
      await expectParam('POST', BASE, { ...POLICY, conditions: [{ key: 'workspace_id', value: 'no-such-workspace' }] }, 'conditions[0].value');
      await expectParam('POST', BASE, { ...POLICY, workspace_id: 'no-such-workspace' }, null, 404);
      assert.equal((await ok('GET', `${BASE}?page_size=100`)).total, before);
    });

    test('a workspace_id condition given as a slug is stored as the workspace id', async () => {
      const id = await create({ conditions: [{ key: 'workspace_id', value: B.slug }], group_by: [{ key: 'api_key' }] });
      assert.deepEqual((await ok('GET', `${BASE}/${id}`)).conditions, [{ key: 'workspace_id', value: B.id }]);
    });

    test('list: what the caller sees, filtered by workspace, status and type, paged', async () => {
      const inA = await create({ type: 'cost', credit_limit: 5 }, keys.svcA.key);
      const inB = await create({ workspace_id: B.id });
      const all = await ok('GET', `${BASE}?page_size=100`);
      assert.equal(all.object, 'list');
      assert.ok(all.data.some((policy: { id: string }) => policy.id === inA) && all.data.some((policy: { id: string }) => policy.id === inB));
      const seenByA = await ok('GET', `${BASE}?page_size=100`, undefined, keys.svcA.key);
      assert.ok(seenByA.data.some((policy: { id: string }) => policy.id === inA));
      assert.ok(!seenByA.data.some((policy: { id: string }) => policy.id === inB), 'B\'s policy is not listed to A');
      assert.ok(seenByA.data.every((policy: { workspace_id: string | null }) => policy.workspace_id === A || policy.workspace_id === null));
      const onlyB = await ok('GET', `${BASE}?workspace_id=${B.slug}`);
      assert.ok(onlyB.data.every((policy: { workspace_id: string }) => policy.workspace_id === B.id) && onlyB.total >= 1);
      assert.equal((await call('GET', `${BASE}?workspace_id=${B.id}`, keys.svcA.key)).status, 404);
      const costs = await ok('GET', `${BASE}?type=cost&page_size=100`);
      assert.ok(costs.data.length > 0 && costs.data.every((policy: { type: string }) => policy.type === 'cost'));
      const page = await ok('GET', `${BASE}?page_size=1&current_page=1`);
      assert.equal(page.data.length, 1);
      assert.equal(page.total, all.total);
      for (const [query, param] of [['status=deleted', 'status'], ['type=requests', 'type'], ['page_size=101', 'page_size'], ['current_page=-1', 'current_page']]) {
        await expectParam('GET', `${BASE}?${query}`, undefined, param!);
      }
    });

    test('get: a bad id is a 400, an unknown or hidden one a 404; include_usage adds the usage map', async () => {
      await expectParam('GET', `${BASE}/not-a-uuid`, undefined, 'policyUsageLimitsId');
      await expectParam('GET', `${BASE}/${MISSING}`, undefined, null, 404);
      const inB = await create({ workspace_id: B.id });
      assert.equal((await call('GET', `${BASE}/${inB}`, keys.svcA.key)).status, 404);
      assert.equal((await call('GET', `${BASE}/${inB}`, keys.svcB.key)).status, 200);
      await expectParam('GET', `${BASE}/${inB}?include_usage=maybe`, undefined, 'include_usage');
      const id = await create();
      await used(id, 'metadata._user:ada', 250);
      await used(id, 'metadata._user:bob', 1000);
      const policy = await ok('GET', `${BASE}/${id}?include_usage=true`);
      assert.deepEqual(policy.value_key_usage_map, {
        'metadata._user:ada': { current_usage: 250, status: 'active', is_threshold_alerts_sent: false, is_exhausted_alerts_sent: false },
        'metadata._user:bob': { current_usage: 1000, status: 'exhausted', is_threshold_alerts_sent: false, is_exhausted_alerts_sent: true },
      });
    });

    test('update: each field; null removes the reset and the threshold; a PUT that sets nothing is a 400', async () => {
      const id = await create({ name: 'before', alert_threshold: 500, periodic_reset: 'weekly' });
      assert.deepEqual(await ok('PUT', `${BASE}/${id}`, { name: 'after', credit_limit: 2000 }), {});
      await audited('usage_limits_policies.update', 'success', id);
      let policy = await ok('GET', `${BASE}/${id}`);
      assert.equal(policy.name, 'after');
      assert.equal(policy.credit_limit, 2000);
      assert.equal(new Date(policy.next_usage_reset_at).getUTCDay(), 1, 'a weekly window starts on a Monday');
      await ok('PUT', `${BASE}/${id}`, { periodic_reset: null, alert_threshold: null });
      policy = await ok('GET', `${BASE}/${id}`);
      assert.equal(policy.periodic_reset, null);
      assert.equal(policy.alert_threshold, null);
      assert.equal(policy.next_usage_reset_at, null);
      await expectParam('PUT', `${BASE}/${id}`, {}, 'body');
      await expectParam('PUT', `${BASE}/${id}`, { credit_limit: 'lots' }, 'credit_limit');
      await expectParam('PUT', `${BASE}/${id}`, { type: 'cost' }, 'type');
      await expectParam('PUT', `${BASE}/${id}`, { alert_threshold: 2000 }, 'alert_threshold');
      await ok('PUT', `${BASE}/${id}`, { alert_threshold: 1500 });
      await expectParam('PUT', `${BASE}/${id}`, { credit_limit: 1000 }, 'credit_limit');
      await expectParam('PUT', `${BASE}/not-a-uuid`, { name: 'x' }, 'policyUsageLimitsId');
      await expectParam('PUT', `${BASE}/${MISSING}`, { name: 'x' }, null, 404);
    });

    test('update: managers change their workspace\'s policies; members and other workspaces cannot; organisation-wide ones are for admin keys', async () => {
      const inA = await create({}, keys.svcA.key);
      await ok('PUT', `${BASE}/${inA}`, { name: 'by manager' }, keys.managerA.key);
      assert.equal((await call('PUT', `${BASE}/${inA}`, keys.memberA.key, { name: 'by member' })).status, 403);
      await audited('usage_limits_policies.update', 'denied', undefined);
      assert.equal((await call('PUT', `${BASE}/${inA}`, keys.svcB.key, { name: 'by B' })).status, 404);
      const orgWide = await create();
      assert.equal((await call('GET', `${BASE}/${orgWide}`, keys.svcA.key)).status, 200, 'seen by workspace keys: it counts their requests');
      assert.equal((await call('PUT', `${BASE}/${orgWide}`, keys.svcA.key, { name: 'by A' })).status, 403);
      assert.equal((await call('DELETE', `${BASE}/${orgWide}`, keys.svcA.key)).status, 403);
    });

    test('raising the limit makes an exhausted entity active again; lowering it exhausts', async () => {
      const id = await create();
      await used(id, 'metadata._user:cy', 1000);
      const exhausted = await ok('GET', `${BASE}/${id}/entities?status=exhausted`);
      assert.deepEqual(exhausted.data.map((entity: { value_key: string }) => entity.value_key), ['metadata._user:cy']);
      await ok('PUT', `${BASE}/${id}`, { credit_limit: 5000 });
      const active = await ok('GET', `${BASE}/${id}/entities?status=active`);
      assert.deepEqual(active.data.map((entity: { value_key: string; status: string }) => [entity.value_key, entity.status]), [['metadata._user:cy', 'active']]);
      await ok('PUT', `${BASE}/${id}`, { credit_limit: 10 });
      assert.equal((await ok('GET', `${BASE}/${id}/entities`)).data[0].status, 'exhausted');
    });

    test('reset_usage_for_value zeroes one value key, live and stored', async () => {
      const id = await create();
      await used(id, 'metadata._user:dee', 900);
      await used(id, 'metadata._user:eve', 100);
      await ok('PUT', `${BASE}/${id}`, { reset_usage_for_value: 'metadata._user:dee' });
      const { value_key_usage_map: map, last_reset_at: lastReset } = await ok('GET', `${BASE}/${id}?include_usage=true`);
      assert.equal(map['metadata._user:dee'].current_usage, 0);
      assert.equal(map['metadata._user:eve'].current_usage, 100);
      assert.ok(lastReset);
      const [stored] = await db().select().from(usageLimitEntities).where(and(eq(usageLimitEntities.policyId, id), eq(usageLimitEntities.valueKey, 'metadata._user:dee')));
      assert.equal(Number(stored!.currentUsage), 0);
    });

    test('entities: listed with their usage, filtered by status and search, paged; reset one; bad ids', async () => {
      const id = await create();
      const ada = await used(id, 'metadata._user:ada_1', 10);
      await used(id, 'metadata._user:bob%', 1000);
      await used(id, 'metadata._user:cy', 20);
      const all = await ok('GET', `${BASE}/${id}/entities`);
      assert.equal(all.object, 'list');
      assert.equal(all.total, 3);
      assert.deepEqual(all.data[0], { id: ada, value_key: 'metadata._user:ada_1', current_usage: 10, status: 'active' });
      assert.deepEqual((await ok('GET', `${BASE}/${id}/entities?search=_1`)).data.map((entity: { id: string }) => entity.id), [ada], '_ is literal');
      assert.equal((await ok('GET', `${BASE}/${id}/entities?search=%25`)).total, 1, '% is literal');
      assert.equal((await ok('GET', `${BASE}/${id}/entities?status=exhausted`)).total, 1);
      const page = await ok('GET', `${BASE}/${id}/entities?page_size=2&current_page=1`);
      assert.deepEqual([page.total, page.data.length], [3, 1]);
      await expectParam('GET', `${BASE}/${id}/entities?status=archived`, undefined, 'status');
      await expectParam('GET', `${BASE}/${id}/entities?page_size=500`, undefined, 'page_size');
      await expectParam('GET', `${BASE}/${MISSING}/entities`, undefined, null, 404);

      assert.deepEqual(await ok('PUT', `${BASE}/${id}/entities/${ada}/reset`), {});
      await audited('usage_limits_policies.reset_entity', 'success', id);
      assert.equal((await ok('GET', `${BASE}/${id}/entities?search=ada`)).data[0].current_usage, 0);
      await expectParam('PUT', `${BASE}/${id}/entities/${ada}/reset`, { reset: true }, 'reset');
      assert.deepEqual(await ok('PUT', `${BASE}/${id}/entities/${ada}/reset`, {}), {}, 'an empty object is no body');
      await expectParam('PUT', `${BASE}/${id}/entities/not-a-uuid/reset`, undefined, 'entityId');
      await expectParam('PUT', `${BASE}/${id}/entities/${MISSING}/reset`, undefined, null, 404);
      assert.equal((await call('PUT', `${BASE}/${id}/entities/${ada}/reset`, keys.svcA.key)).status, 403, 'an organisation-wide policy is reset by admin keys');
    });

    test('delete archives: gone from the active list and reads, listed and read as archived', async () => {
      const id = await create({}, keys.svcA.key);
      assert.equal((await call('DELETE', `${BASE}/${id}`, keys.memberA.key)).status, 403);
      assert.deepEqual(await ok('DELETE', `${BASE}/${id}`, undefined, keys.managerA.key), {});
      await audited('usage_limits_policies.delete', 'success', id);
      assert.equal((await admin('GET', `${BASE}/${id}`)).status, 404);
      assert.equal((await admin('DELETE', `${BASE}/${id}`)).status, 404);
      assert.equal((await admin('PUT', `${BASE}/${id}`, { name: 'x' })).status, 404);
      assert.equal((await ok('GET', `${BASE}/${id}?status=archived`)).status, 'archived');
      const archived = await ok('GET', `${BASE}?status=archived&page_size=100`);
      assert.ok(archived.data.some((policy: { id: string }) => policy.id === id));
      assert.ok(!(await ok('GET', `${BASE}?page_size=100`)).data.some((policy: { id: string }) => policy.id === id));
    });

    test('scopes: a key without them gets a 403 naming the scope on every route; no key is a 401', async () => {
      const id = await create();
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', BASE, POLICY, 'usage_limits_policies.create'],
        ['GET', BASE, undefined, 'usage_limits_policies.list'],
        ['GET', `${BASE}/${id}`, undefined, 'usage_limits_policies.read'],
        ['PUT', `${BASE}/${id}`, { name: 'x' }, 'usage_limits_policies.update'],
        ['DELETE', `${BASE}/${id}`, undefined, 'usage_limits_policies.delete'],
        ['GET', `${BASE}/${id}/entities`, undefined, 'usage_limits_policies.read'],
        ['PUT', `${BASE}/${id}/entities/${MISSING}/reset`, undefined, 'usage_limits_policies.update'],
      ];
      for (const [method, path, body, scope] of routes) {
        const denied = await call(method, path, keys.unscoped.key, body);
        assert.equal(denied.status, 403, `${method} ${path}`);
        assert.equal(denied.body.error.code, 'missing_scope');
        assert.match(denied.body.error.message, new RegExp(scope.replace('.', '\\.')));
        assert.equal((await call(method, path, undefined, body)).status, 401, `${method} ${path} without a key`);
      }
      await audited('usage_limits_policies.delete', 'denied');
    });
  });
}
