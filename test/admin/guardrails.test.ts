/** The Guardrails group over HTTP, on every back-end: grants and denials, validation, conflicts, archive, audit, loadGuardrail. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { loadGuardrail } from '../../src/domain/guardrails/load-guardrail.ts';
import { auditLogs, guardrails, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `guardrails.${action}`);
const CHECKS = [{ id: 'default.regexMatch', parameters: { rule: '\\d{3}' } }];
const DEFAULT_ACTIONS = {
  deny: false, async: false,
  on_success: { feedback: { value: 5, weight: 1, metadata: '' } },
  on_fail: { feedback: { value: -5, weight: 1, metadata: '' } },
};

for (const backend of testBackends()) {
  describe(`guardrails on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string; // the default workspace
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });
    const create = (body: Record<string, unknown>, key?: string) => ok('POST', '/guardrails', { name: 'G', checks: CHECKS, actions: {}, ...body }, key);

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
      assert.equal(response.status, status, `${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
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
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('an admin key creates an organisation-wide guardrail; defaults are filled in; it is audited', async () => {
      const created = await create({ name: 'PII guard', checks: [{ id: 'gateway.pii', parameters: { categories: ['EMAIL_ADDRESS'], redact: true }, name: 'emails' }] });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug', 'version_id']);
      assert.match(created.slug, /^pg-pii-guard-[0-9a-f]{6}$/);
      assert.equal(created.version_id, null);
      const details = await ok('GET', `/guardrails/${created.slug}`);
      const { created_at: createdAt, last_updated_at: updatedAt, owner_id: owner, ...rest } = details;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0 && typeof owner === 'string');
      assert.deepEqual(rest, {
        id: created.id, name: 'PII guard', slug: created.slug, organisation_id: gateway.gateway.bootstrap.organisation.id,
        workspace_id: null, status: 'active', updated_by: null, actions: DEFAULT_ACTIONS,
        checks: [{ id: 'gateway.pii', parameters: { categories: ['EMAIL_ADDRESS'], redact: true }, name: 'emails', is_enabled: true }],
      });
      assert.equal((await ok('GET', `/guardrails/${created.id}`)).slug, created.slug);
      await audited('guardrails.create', 'success', created.id);
    });

    test('bad bodies are 400s naming the field, and leave nothing behind', async () => {
      const valid = { name: 'x', checks: CHECKS, actions: {} };
      const regex = (parameters: unknown) => ({ ...valid, checks: [CHECKS[0], { id: 'default.regexMatch', parameters }] });
      const cases: Array<[unknown, string]> = [
        [{ checks: CHECKS, actions: {} }, 'name'],
        [{ ...valid, name: '' }, 'name'],
        [{ name: 'x', actions: {} }, 'checks'],
        [{ ...valid, checks: [] }, 'checks'],
        [{ name: 'x', checks: CHECKS }, 'actions'],
        [{ ...valid, checks: [{ parameters: {} }] }, 'checks[0].id'],
        [{ ...valid, checks: [{ id: 'patronus.pii' }] }, 'checks[0].id'],
        [{ ...valid, checks: [{ id: 'default.regexMatch', parameters: {}, extra: 1 }] }, 'checks[0].extra'],
        [{ ...valid, checks: [{ id: 'default.regexMatch', parameters: { rule: 'a' }, is_enabled: 'yes' }] }, 'checks[0].is_enabled'],
        [{ ...valid, checks: [{ id: 'default.regexMatch', parameters: 'a' }] }, 'checks[0].parameters'],
        [regex({ rule: 5 }), 'checks[1].parameters.rule'],
        [regex({ rule: '(' }), 'checks[1].parameters.rule'],
        [regex({ rule: 'a', nott: true }), 'checks[1].parameters.nott'],
        [{ ...valid, actions: { deny: 'yes' } }, 'actions.deny'],
        [{ ...valid, actions: { deny: true, async: true } }, 'actions.deny'],
        [{ ...valid, actions: { on_fail: { feedback: { value: 11 } } } }, 'actions.on_fail.feedback.value'],
        [{ ...valid, actions: { on_success: { feedback: { weight: 2 } } } }, 'actions.on_success.feedback.weight'],
        [{ ...valid, actions: { on_success: { feedback: { metadata: {} } } } }, 'actions.on_success.feedback.metadata'],
        [{ ...valid, actions: { retry: true } }, 'actions.retry'],
        [{ ...valid, slug: 'bad slug' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, organisation_id: MISSING }, 'organisation_id'],
        [{ ...valid, organisation_id: 'nope' }, 'organisation_id'],
        [{ ...valid, surprise: 1 }, 'surprise'],
      ];
      for (const [body, param] of cases) await expectParam('POST', '/guardrails', body, param);
      assert.equal((await expectParam('POST', '/guardrails', cases[6]![0], 'checks[0].id')).code, 'unknown_guardrail_check');
      await expectParam('POST', '/guardrails', { ...valid, workspace_id: MISSING }, null, 404);
      assert.equal((await db().select().from(guardrails).where(eq(guardrails.name, 'x'))).length, 0, 'a refused create writes nothing');
      await audited('guardrails.create', 'failed');
    });

    test('a taken slug is a 409; an archived guardrail frees its slug', async () => {
      const first = await create({ slug: 'shared', workspace_id: 'team-b' });
      assert.equal(first.slug, 'shared');
      const again = await admin('POST', '/guardrails', { name: 'G', slug: 'shared', checks: CHECKS, actions: {} });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'guardrail_slug_taken');
      await audited('guardrails.create', 'failed');
      const deleted = await admin('DELETE', '/guardrails/shared');
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body, undefined, 'guardrail delete answers with no body');
      assert.equal((await db().select().from(guardrails).where(eq(guardrails.id, first.id)))[0]!.status, 'archived');
      await audited('guardrails.delete', 'success', first.id);
      for (const method of ['GET', 'PUT', 'DELETE']) assert.equal((await admin(method, `/guardrails/${first.id}`, method === 'PUT' ? { name: 'y' } : undefined)).status, 404);
      assert.notEqual((await create({ slug: 'shared' })).id, first.id);
    });

    test('workspace keys: their own workspace, managers only; another workspace is a 404', async () => {
      const bySvc = await create({ name: 'svc' }, keys.svcA.key);
      assert.equal((await ok('GET', `/guardrails/${bySvc.id}`)).workspace_id, A, 'a workspace key creates in its workspace');
      const byManager = await create({ name: 'mgr', workspace_id: A }, keys.managerA.key);
      assert.equal((await ok('GET', `/guardrails/${byManager.id}`)).owner_id, (await ok('GET', `/api-keys/${keys.managerA.id}`)).user_id);
      const byMember = await call('POST', '/guardrails', keys.memberA.key, { name: 'm', checks: CHECKS, actions: {} });
      assert.equal(byMember.status, 403);
      assert.equal(byMember.body.error.code, 'workspace_manager_required');
      await audited('guardrails.create', 'denied');
      assert.equal((await call('PUT', `/guardrails/${bySvc.id}`, keys.memberA.key, { name: 'm' })).status, 403);
      assert.equal((await call('DELETE', `/guardrails/${bySvc.id}`, keys.memberA.key)).status, 403);
      assert.equal((await call('GET', `/guardrails/${bySvc.id}`, keys.memberA.key)).status, 200, 'members read');
      const elsewhere = await call('POST', '/guardrails', keys.svcA.key, { name: 'x', checks: CHECKS, actions: {}, workspace_id: B.id });
      assert.equal(elsewhere.status, 404);
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        assert.equal((await call(method, `/guardrails/${bySvc.slug}`, keys.svcB.key, body)).status, 404, `${method} from B`);
      }
      await audited('guardrails.update', 'failed', undefined);
    });

    test('organisation-wide guardrails: workspace keys read them, only admin keys change them', async () => {
      const global = await create({ name: 'global' });
      assert.equal((await call('GET', `/guardrails/${global.id}`, keys.svcB.key)).status, 200);
      for (const [method, body] of [['PUT', { name: 'x' }], ['DELETE']] as const) {
        const denied = await call(method, `/guardrails/${global.id}`, keys.svcA.key, body);
        assert.equal(denied.status, 403, method);
        assert.equal(denied.body.error.code, 'admin_key_required');
      }
      await audited('guardrails.delete', 'denied');
      const listB = await ok('GET', '/guardrails?page_size=1000', undefined, keys.svcB.key);
      const ids = listB.data.map((row: { id: string }) => row.id);
      assert.ok(ids.includes(global.id), 'B sees organisation-wide guardrails');
      assert.ok(listB.data.every((row: { workspace_id: string | null }) => row.workspace_id === null || row.workspace_id === B.id));
      assert.equal((await call('GET', `/guardrails?workspace_id=${A}`, keys.svcB.key)).status, 404);
    });

    test('every route needs its scope: 403 naming it, audited as denied', async () => {
      const unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'none', scopes: ['completions.write'] });
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/guardrails', { name: 'x', checks: CHECKS, actions: {} }, 'guardrails.create'],
        ['GET', '/guardrails', undefined, 'guardrails.list'],
        ['GET', `/guardrails/${MISSING}`, undefined, 'guardrails.read'],
        ['PUT', `/guardrails/${MISSING}`, { name: 'x' }, 'guardrails.update'],
        ['DELETE', `/guardrails/${MISSING}`, undefined, 'guardrails.delete'],
      ];
      for (const [method, path, body, scope] of routes) {
        const response = await call(method, path, unscoped.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.ok(response.body.error.message.includes(scope), response.body.error.message);
        await audited(scope, 'denied');
      }
    });

    test('list: the list envelope, pages, the workspace filter; bad queries name the parameter', async () => {
      await create({ name: 'in B', workspace_id: B.id });
      const all = await ok('GET', '/guardrails?page_size=1000');
      assert.equal(all.object, 'list');
      assert.equal(all.total, all.data.length);
      assert.ok(all.total >= 3);
      assert.equal(all.data[0].checks, undefined, 'summaries carry no checks');
      const paged = await ok('GET', '/guardrails?page_size=1&current_page=1');
      assert.deepEqual(paged.data.map((row: { id: string }) => row.id), [all.data[1].id]);
      assert.equal(paged.total, all.total);
      const inB = await ok('GET', `/guardrails?workspace_id=team-b&organisation_id=${gateway.gateway.bootstrap.organisation.id}`);
      assert.ok(inB.total >= 1 && inB.data.every((row: { workspace_id: string }) => row.workspace_id === B.id));
      for (const query of ['page_size=0', 'page_size=1001', 'current_page=-1', `organisation_id=${MISSING}`]) {
        await expectParam('GET', `/guardrails?${query}`, undefined, query.split('=')[0]!);
      }
      await expectParam('GET', `/guardrails?workspace_id=${MISSING}`, undefined, null, 404);
    });

    test('update: name, checks and actions are replaced; bad bodies name the field', async () => {
      const created = await create({ name: 'Before', workspace_id: A });
      const path = `/guardrails/${created.id}`;
      const before = await ok('GET', path);
      const body = {
        name: 'After',
        checks: [{ id: 'default.wordCount', parameters: { minWords: 1, maxWords: 10 }, is_enabled: false }],
        actions: { deny: true, on_fail: { feedback: { value: -10, weight: 0.5, metadata: 'blocked' } } },
      };
      assert.deepEqual(await ok('PUT', path, body, keys.managerA.key), { id: created.id, slug: created.slug, version_id: null });
      const after = await ok('GET', path);
      assert.equal(after.name, 'After');
      assert.deepEqual(after.checks, body.checks);
      assert.deepEqual(after.actions, { ...DEFAULT_ACTIONS, deny: true, on_fail: { feedback: { value: -10, weight: 0.5, metadata: 'blocked' } } });
      assert.equal(after.updated_by, (await ok('GET', `/api-keys/${keys.managerA.id}`)).user_id);
      assert.ok(Date.parse(after.last_updated_at) >= Date.parse(before.last_updated_at));
      await audited('guardrails.update', 'success', created.id);
      const cases: Array<[unknown, string]> = [
        [{ name: '' }, 'name'],
        [{ slug: 'new' }, 'slug'],
        [{ checks: [] }, 'checks'],
        [{ checks: [{ id: 'default.wordCount', parameters: { minWords: 'one' } }] }, 'checks[0].parameters.minWords'],
        [{ checks: [{ id: 'acuvity.scan' }] }, 'checks[0].id'],
        [{ actions: { async: 1 } }, 'actions.async'],
      ];
      for (const [bad, param] of cases) await expectParam('PUT', path, bad, param);
      assert.deepEqual((await ok('GET', path)).checks, body.checks, 'a refused update changes nothing');
      await expectParam('PUT', `/guardrails/${MISSING}`, { name: 'x' }, null, 404);
      await expectParam('GET', '/guardrails/no.such', undefined, 'guardrailId');
    });

    test('loadGuardrail resolves what a workspace may use: its own and organisation-wide, never archived', async () => {
      const organisationId = gateway.gateway.bootstrap.organisation.id;
      const own = await create({ name: 'own', workspace_id: B.id, actions: { async: true } });
      const global = await create({ name: 'org wide' });
      const loaded = await loadGuardrail(db(), organisationId, B.id, own.slug);
      assert.equal(loaded?.id, own.id);
      assert.deepEqual(loaded?.checks, [{ ...CHECKS[0], is_enabled: true }]);
      assert.deepEqual(loaded?.actions, { ...DEFAULT_ACTIONS, async: true });
      assert.equal((await loadGuardrail(db(), organisationId, A, own.id)), undefined, 'another workspace\'s guardrail');
      assert.equal((await loadGuardrail(db(), organisationId, A, global.id))?.slug, global.slug);
      assert.equal((await loadGuardrail(db(), organisationId, null, global.slug))?.workspaceId, null);
      assert.equal((await loadGuardrail(db(), MISSING, B.id, own.id)), undefined, 'another organisation');
      await ok('DELETE', `/guardrails/${own.id}`);
      assert.equal(await loadGuardrail(db(), organisationId, B.id, own.slug), undefined, 'archived');
    });
  });
}
