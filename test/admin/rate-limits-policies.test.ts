/**
 * The Rate limits policies group over HTTP (§3.19), on every back-end: create, list, get, delete (archive), and
 * every status of the seed's PUT: 200 `{}` (application/json), 400 (path id, body), 401, 403, 404, and 500 when the
 * store fails, with nothing written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { request } from 'undici';
import { auditLogs, rateLimitPolicies, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `rate_limits_policies.${action}`);
const PER_USER = { conditions: [{ key: 'metadata.team', value: 'search' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpm', value: 10 };

for (const backend of testBackends()) {
  describe(`rate limits policies on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string; // the default workspace
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'memberA' | 'unscoped', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const create = (body: Record<string, unknown> = {}, key?: string) => ok('POST', '/policies/rate-limits', { ...PER_USER, ...body }, key);
    const stored = async (id: string) => (await db().select().from(rateLimitPolicies).where(eq(rateLimitPolicies.id, id)))[0]!;

    async function audited(action: string, outcome: string, status?: number) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => status === undefined || row.responseStatusCode === status), `an audit record ${action}/${outcome}/${status}`);
    }

    /** `key` null: no key at all */
    async function refused(method: string, path: string, body: unknown, status: number, param?: string | null, key: string | null = gateway.adminKey) {
      const response = await call(method, path, key ?? undefined, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(typeof response.body.error.message, 'string', 'the error shape');
      if (param !== undefined) assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
      keys.svcA = await ok('POST', '/api-keys/workspace/service', { name: 'svc A', scopes: SCOPES, workspace_id: A });
      keys.svcB = await ok('POST', '/api-keys/workspace/service', { name: 'svc B', scopes: SCOPES, workspace_id: B.id });
      keys.unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'no policy scopes', scopes: ['completions.write'] });
      const [row] = await db().insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email: 'member@example.com', role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${A}/users`, { users: [{ id: row!.id, role: 'member' }] });
      keys.memberA = await ok('POST', '/api-keys/workspace/user', { name: 'member', scopes: SCOPES, workspace_id: A, user_id: row!.id });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('create: an admin key makes an organisation-wide policy; it reads back in the reference\'s shape; audited', async () => {
      const created = await create({ name: 'Per user' });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'object']);
      assert.equal(created.object, 'rate_limits_policy');
      const read = await ok('GET', `/policies/rate-limits/${created.id}`);
      const { created_at: createdAt, last_updated_at: updatedAt, ...rest } = read;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
      assert.deepEqual(rest, {
        id: created.id, name: 'Per user', conditions: PER_USER.conditions, group_by: PER_USER.group_by, type: 'requests', unit: 'rpm', value: 10,
        on_store_failure: 'open', status: 'active', workspace_id: null, organisation_id: gateway.gateway.bootstrap.organisation.id, object: 'rate_limits_policy',
        usage: [],
      });
      await audited('rate_limits_policies.create', 'success');
    });

    test('on_store_failure: open by default, closed when asked, on create and on update (alone or with the seed\'s fields); anything else a 400 naming it', async () => {
      const open = await create();
      assert.equal((await ok('GET', `/policies/rate-limits/${open.id}`)).on_store_failure, 'open', 'a rate limit fails open by default');
      const closed = await create({ on_store_failure: 'closed' });
      assert.equal((await ok('GET', `/policies/rate-limits/${closed.id}`)).on_store_failure, 'closed');
      assert.equal((await stored(closed.id)).onStoreFailure, 'closed');
      assert.deepEqual(await ok('PUT', `/policies/rate-limits/${open.id}`, { on_store_failure: 'closed' }), {});
      assert.equal((await ok('GET', `/policies/rate-limits/${open.id}`)).on_store_failure, 'closed');
      assert.deepEqual(await ok('PUT', `/policies/rate-limits/${open.id}`, { value: 3, on_store_failure: 'open' }), {});
      const read = await ok('GET', `/policies/rate-limits/${open.id}`);
      assert.deepEqual([read.value, read.on_store_failure], [3, 'open']);
      assert.deepEqual(await ok('PUT', `/policies/rate-limits/${open.id}`, { value: 4 }), {});
      assert.equal((await stored(open.id)).onStoreFailure, 'open', 'a PUT that does not name it keeps it');
      const listed = await ok('GET', '/policies/rate-limits?page_size=100');
      assert.equal(listed.data.find((row: { id: string }) => row.id === closed.id).on_store_failure, 'closed', 'lists show it too');
      const before = (await db().select().from(rateLimitPolicies)).length;
      for (const value of ['half', 'OPEN', '', null, true, 1]) {
        await refused('POST', '/policies/rate-limits', { ...PER_USER, on_store_failure: value }, 400, 'on_store_failure');
        await refused('PUT', `/policies/rate-limits/${open.id}`, { on_store_failure: value }, 400, 'on_store_failure');
      }
      assert.equal((await db().select().from(rateLimitPolicies)).length, before, 'nothing created');
      assert.equal((await stored(open.id)).onStoreFailure, 'open', 'nothing changed');
    });

    test('create: conditions are stored as ids (a workspace slug becomes its id); workspace keys create in their own workspace', async () => {
      const created = await create({ conditions: [{ key: 'workspace_id', value: 'team-b' }, { key: 'provider', value: '@prod' }], workspace_id: 'team-b' });
      const read = await ok('GET', `/policies/rate-limits/${created.id}`);
      assert.deepEqual(read.conditions, [{ key: 'workspace_id', value: B.id }, { key: 'provider', value: '@prod' }]);
      assert.equal(read.workspace_id, B.id);
      const bySvc = await create({}, keys.svcA.key);
      assert.equal((await ok('GET', `/policies/rate-limits/${bySvc.id}`)).workspace_id, A);
      await refused('POST', '/policies/rate-limits', { ...PER_USER, workspace_id: B.id }, 404, null, keys.svcA.key);
      const byMember = await refused('POST', '/policies/rate-limits', PER_USER, 403, null, keys.memberA.key);
      assert.equal(byMember.code, 'workspace_manager_required');
      const orgWideFromWorkspace = await refused('POST', '/policies/rate-limits', { ...PER_USER, conditions: [{ key: 'workspace_id', value: B.id }] }, 400, 'conditions[0].value', keys.svcA.key);
      assert.match(orgWideFromWorkspace.message, /No workspace/);
    });

    test('create: bad bodies are 400s naming the field, and write nothing', async () => {
      const before = (await db().select().from(rateLimitPolicies)).length;
      const cases: Array<[unknown, string]> = [
        [{ ...PER_USER, conditions: [] }, 'conditions'],
        [{ ...PER_USER, conditions: undefined }, 'conditions'],
        [{ ...PER_USER, group_by: [] }, 'group_by'],
        [{ ...PER_USER, conditions: [{ key: 'user', value: 'x' }] }, 'conditions[0].key'],
        [{ ...PER_USER, conditions: [{ key: 'api_key' }] }, 'conditions[0].value'],
        [{ ...PER_USER, conditions: [{ key: 'api_key', value: 'not-an-id' }] }, 'conditions[0].value'],
        [{ ...PER_USER, conditions: [{ key: 'organisation_id', value: MISSING }] }, 'conditions[0].value'],
        [{ ...PER_USER, group_by: [{ key: 'metadata.' }] }, 'group_by[0].key'],
        [{ ...PER_USER, type: 'cost' }, 'type'],
        [{ ...PER_USER, unit: 'rps' }, 'unit'],
        [{ ...PER_USER, value: 0 }, 'value'],
        [{ ...PER_USER, value: '10' }, 'value'],
        [{ ...PER_USER, name: 'x'.repeat(256) }, 'name'],
        [{ ...PER_USER, organisation_id: MISSING }, 'organisation_id'],
        [{ ...PER_USER, surprise: 1 }, 'surprise'],
      ];
      for (const [body, param] of cases) await refused('POST', '/policies/rate-limits', body, 400, param);
      await refused('POST', '/policies/rate-limits', { ...PER_USER, workspace_id: MISSING }, 404, null);
      assert.equal((await db().select().from(rateLimitPolicies)).length, before);
      await audited('rate_limits_policies.create', 'failed');
    });

    test('list: the list envelope, pages and filters; a workspace key sees its own and the organisation-wide ones', async () => {
      await create({ type: 'tokens', unit: 'rph', value: 1000, workspace_id: B.id });
      const all = await ok('GET', '/policies/rate-limits?page_size=100');
      assert.equal(all.object, 'list');
      assert.equal(all.total, all.data.length);
      assert.ok(all.total >= 4);
      const paged = await ok('GET', '/policies/rate-limits?page_size=1&current_page=1');
      assert.deepEqual(paged.data.map((row: { id: string }) => row.id), [all.data[1].id]);
      assert.equal(paged.total, all.total);
      const tokens = await ok('GET', '/policies/rate-limits?type=tokens&unit=rph');
      assert.ok(tokens.total >= 1 && tokens.data.every((row: { type: string; unit: string }) => row.type === 'tokens' && row.unit === 'rph'));
      const inB = await ok('GET', '/policies/rate-limits?workspace_id=team-b');
      assert.ok(inB.total >= 1 && inB.data.every((row: { workspace_id: string }) => row.workspace_id === B.id));
      const seenByA = await ok('GET', '/policies/rate-limits?page_size=100', undefined, keys.svcA.key);
      assert.ok(seenByA.data.every((row: { workspace_id: string | null }) => row.workspace_id === null || row.workspace_id === A));
      assert.ok(seenByA.data.some((row: { workspace_id: string | null }) => row.workspace_id === null));
      await refused('GET', `/policies/rate-limits?workspace_id=${B.id}`, undefined, 404, null, keys.svcA.key);
      for (const query of ['status=gone', 'type=cost', 'unit=rps', 'page_size=0', 'page_size=101', 'current_page=-1']) {
        await refused('GET', `/policies/rate-limits?${query}`, undefined, 400, query.split('=')[0]!);
      }
    });

    test('delete archives: gone from reads and lists, read back with status=archived, never changed again', async () => {
      const created = await create({ name: 'short-lived' });
      const deleted = await admin('DELETE', `/policies/rate-limits/${created.id}`);
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.body, {});
      assert.equal((await stored(created.id)).status, 'archived');
      await refused('GET', `/policies/rate-limits/${created.id}`, undefined, 404, null);
      assert.equal((await ok('GET', `/policies/rate-limits/${created.id}?status=archived`)).status, 'archived');
      const archived = await ok('GET', '/policies/rate-limits?status=archived');
      assert.ok(archived.data.some((row: { id: string }) => row.id === created.id));
      await refused('PUT', `/policies/rate-limits/${created.id}`, { value: 1 }, 404, null);
      await refused('DELETE', `/policies/rate-limits/${created.id}`, undefined, 404, null);
      await audited('rate_limits_policies.delete', 'success');
    });

    describe('PUT /policies/rate-limits/{rateLimitsPolicyId}, every status of the seed', () => {
      test('200: `{}` as application/json; what it names changes, nothing else', async () => {
        const created = await create({ name: 'Before', workspace_id: A });
        const response = await request(`${gateway.baseURL}/policies/rate-limits/${created.id}`, {
          method: 'PUT',
          headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'After', unit: 'rpd', value: 2.5 }),
        });
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^application\/json(;|$)/);
        assert.equal(await response.body.text(), '{}');
        const read = await ok('GET', `/policies/rate-limits/${created.id}`);
        assert.deepEqual([read.name, read.unit, read.value, read.type], ['After', 'rpd', 2.5, 'requests']);
        assert.deepEqual(read.conditions, PER_USER.conditions);
        assert.deepEqual(await ok('PUT', `/policies/rate-limits/${created.id}`, {}), {}, 'every field is optional');
        assert.deepEqual(await ok('PUT', `/policies/rate-limits/${created.id}`, { value: 7 }, keys.svcA.key), {}, 'a workspace key manages its workspace\'s');
        assert.equal((await stored(created.id)).value, 7);
        assert.deepEqual(await ok('PUT', `/policies/rate-limits/${created.id}`, { name: '' }), {});
        await audited('rate_limits_policies.update', 'success', 200);
      });

      test('400: a path id that is not a UUID, or a malformed body, naming what is wrong; nothing changes', async () => {
        const created = await create({ name: 'Kept' });
        const path = `/policies/rate-limits/${created.id}`;
        for (const id of ['not-a-uuid', '12345', `${MISSING}0`, 'pc-slug']) {
          await refused('PUT', `/policies/rate-limits/${id}`, { value: 1 }, 400, 'rateLimitsPolicyId');
        }
        const cases: Array<[unknown, string]> = [
          [{ name: 'x'.repeat(256) }, 'name'],
          [{ name: 5 }, 'name'],
          [{ name: null }, 'name'],
          [{ unit: 'rps' }, 'unit'],
          [{ unit: 'RPM' }, 'unit'],
          [{ value: 0 }, 'value'],
          [{ value: -3 }, 'value'],
          [{ value: '10' }, 'value'],
          [{ value: null }, 'value'],
          [{ type: 'tokens' }, 'type'],
          [{ conditions: [] }, 'conditions'],
          [[], 'body'],
          ['rpm', 'body'],
        ];
        for (const [body, param] of cases) await refused('PUT', path, body, 400, param);
        await refused('PUT', path, undefined, 400, 'body');
        const raw = await request(`${gateway.baseURL}${path}`, { method: 'PUT', headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json' }, body: '{"value": ' });
        assert.equal(raw.statusCode, 400);
        assert.equal(((await raw.body.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
        const row = await stored(created.id);
        assert.deepEqual([row.name, row.unit, row.value], ['Kept', 'rpm', 10]);
        await audited('rate_limits_policies.update', 'failed', 400);
      });

      test('401: no key, or a key that is not one', async () => {
        const created = await create();
        for (const key of [null, 'not-a-real-key-0123456789']) {
          const error = await refused('PUT', `/policies/rate-limits/${created.id}`, { value: 1 }, 401, undefined, key);
          assert.equal(error.type, 'authentication_error');
        }
      });

      test('403: a key without the scope, a member without manager rights, a workspace key on an organisation-wide policy', async () => {
        const global = await create();
        const inA = await create({ workspace_id: A });
        const noScope = await refused('PUT', `/policies/rate-limits/${global.id}`, { value: 1 }, 403, undefined, keys.unscoped.key);
        assert.equal(noScope.code, 'missing_scope');
        assert.match(noScope.message, /rate_limits_policies\.update/);
        assert.equal((await refused('PUT', `/policies/rate-limits/${inA.id}`, { value: 1 }, 403, undefined, keys.memberA.key)).code, 'workspace_manager_required');
        assert.equal((await refused('PUT', `/policies/rate-limits/${global.id}`, { value: 1 }, 403, undefined, keys.svcA.key)).code, 'admin_key_required');
        assert.equal((await stored(global.id)).value, 10);
        await audited('rate_limits_policies.update', 'denied', 403);
      });

      test('404: an unknown id, another workspace\'s policy (its existence does not leak), an archived one', async () => {
        const inB = await create({ workspace_id: B.id });
        for (const [id, key] of [[MISSING, gateway.adminKey], [inB.id, keys.svcA.key]] as const) {
          const error = await refused('PUT', `/policies/rate-limits/${id}`, { value: 1 }, 404, null, key);
          assert.equal(error.code, 'rate_limits_policy_not_found');
        }
        assert.equal((await stored(inB.id)).value, 10);
        await audited('rate_limits_policies.update', 'failed', 404);
      });

      test('500: the store fails, the answer is the error shape, and nothing is half-written', async () => {
        const created = await create({ name: 'Untouched' });
        // the store refuses the row change itself; and, separately, the audit record written after the change in the
        // same transaction (one statement per call: PGlite prepares each)
        const statements = [
          `create or replace function refuse_policy_update() returns trigger language plpgsql as $$
           begin
             if new.name = 'explode' then raise exception 'disk full'; end if;
             return new;
           end $$`,
          'create trigger refuse_policy_update before update on rate_limit_policies for each row execute function refuse_policy_update()',
          `create or replace function refuse_update_audit() returns trigger language plpgsql as $$
           begin
             if new.action = 'rate_limits_policies.update' and new.response_status_code = 200 and new.request_body like '%late-failure%' then
               raise exception 'audit store unavailable';
             end if;
             return new;
           end $$`,
          'create trigger refuse_update_audit before insert on audit_logs for each row execute function refuse_update_audit()',
        ];
        for (const statement of statements) await db().execute(sql.raw(statement));
        try {
          for (const body of [{ name: 'explode', value: 99 }, { name: 'late-failure', unit: 'rph', value: 98 }]) {
            const error = await refused('PUT', `/policies/rate-limits/${created.id}`, body, 500, null);
            assert.equal(error.type, 'server_error');
            assert.equal(error.message, 'The gateway hit an internal error.', 'no internals in the answer');
            const row = await stored(created.id);
            assert.deepEqual([row.name, row.unit, row.value], ['Untouched', 'rpm', 10], `${JSON.stringify(body)} wrote nothing`);
          }
          await audited('rate_limits_policies.update', 'failed', 500);
        } finally {
          await db().execute(sql.raw('drop trigger refuse_policy_update on rate_limit_policies'));
          await db().execute(sql.raw('drop trigger refuse_update_audit on audit_logs'));
        }
        assert.deepEqual(await ok('PUT', `/policies/rate-limits/${created.id}`, { value: 11 }), {}, 'the store is back');
      });
    });

    test('every route needs its scope: 403 naming it', async () => {
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/policies/rate-limits', PER_USER, 'rate_limits_policies.create'],
        ['GET', '/policies/rate-limits', undefined, 'rate_limits_policies.list'],
        ['GET', `/policies/rate-limits/${MISSING}`, undefined, 'rate_limits_policies.read'],
        ['DELETE', `/policies/rate-limits/${MISSING}`, undefined, 'rate_limits_policies.delete'],
      ];
      for (const [method, path, body, scope] of routes) {
        const error = await refused(method, path, body, 403, undefined, keys.unscoped.key);
        assert.equal(error.code, 'missing_scope');
        assert.ok(error.message.includes(scope), error.message);
      }
    });
  });
}
