/** The Workspaces and Workspace members groups over HTTP: grants and denials, validation, conflicts, audit records. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLogs, users, workspaceMembers, workspaces } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const MEMBER_SCOPES = ['workspaces.read', 'workspaces.list', ...['create', 'list', 'read', 'update', 'delete'].map((action) => `workspace_users.${action}`)];
const WORKSPACE_SCOPES = [...MEMBER_SCOPES, 'workspaces.create', 'workspaces.update', 'workspaces.delete'];

for (const backend of testBackends()) {
  describe(`workspaces and members [${backend.name}]`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let defaultWorkspaceId: string;

    before(async () => {
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      defaultWorkspaceId = gateway.gateway.bootstrap.workspace.id;
    });

    after(() => closeAll(() => gateway?.close()));

    const db = () => gateway.gateway.database.db;

    async function newUser(email: string, role = 'member'): Promise<string> {
      const [row] = await db().insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email, firstName: 'F', lastName: 'L', role }).returning();
      return row!.id;
    }

    async function key(path: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
      const created = await call('POST', `/api-keys/${path}`, gateway.adminKey, { name: 'k', ...body });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      return created.body;
    }

    const adminKeyWith = (scopes: string[]) => key('organisation/service', { scopes });
    const serviceKey = (workspaceId: string, scopes = WORKSPACE_SCOPES) => key('workspace/service', { scopes, workspace_id: workspaceId });
    const userKey = (workspaceId: string, userId: string) => key('workspace/user', { scopes: MEMBER_SCOPES, workspace_id: workspaceId, user_id: userId });

    async function createWorkspace(body: Record<string, unknown>): Promise<{ id: string; slug: string }> {
      const created = await call('POST', '/admin/workspaces', gateway.adminKey, body);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      return created.body;
    }

    async function audited(action: string, outcome: string, resourceId?: string): Promise<void> {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    async function expectParam(method: string, path: string, body: unknown, param: string, status = 400): Promise<void> {
      const response = await call(method, path, gateway.adminKey, body);
      assert.equal(response.status, status, `${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
    }

    describe('workspaces', () => {
      test('an admin key creates a workspace with members and limits; the slug is generated; it is audited', async () => {
        const member = await newUser('first@example.com');
        const body = {
          name: 'Test a workspace',
          description: 'for tests',
          defaults: { metadata: { team: 'qa' } },
          users: [member],
          usage_limits: [{ credit_limit: 10, type: 'cost', periodic_reset: 'monthly' }],
          rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }],
        };
        const created = await call('POST', '/admin/workspaces', gateway.adminKey, body);
        assert.equal(created.status, 200, JSON.stringify(created.body));
        assert.equal(created.body.object, 'workspace');
        assert.match(created.body.slug, /^ws-test-a-wor-[0-9a-f]{6}$/);
        assert.deepEqual(created.body.defaults, { metadata: { team: 'qa' }, is_default: 0 });
        assert.equal(created.body.status, 'active');
        assert.deepEqual(created.body.usage_limits, body.usage_limits);
        assert.deepEqual(created.body.rate_limits, body.rate_limits);
        const fetched = await call('GET', `/admin/workspaces/${created.body.slug}`, gateway.adminKey);
        assert.equal(fetched.status, 200);
        assert.equal(fetched.body.id, created.body.id);
        assert.deepEqual(fetched.body.users.map((user: { id: string; role: string; object: string }) => [user.id, user.role, user.object]), [[member, 'member', 'workspace-user']]);
        assert.deepEqual(fetched.body.defaults, { metadata: { team: 'qa' }, is_default: 0, input_guardrails: [], output_guardrails: [], user_api_key_config: null, log_bodies: true });
        await audited('workspaces.create', 'success', created.body.id);
      });

      test('bad bodies are 400s naming the field, and leave nothing behind', async () => {
        const known = await newUser('known@example.com');
        const cases: Array<[unknown, string]> = [
          [{}, 'name'],
          [{ name: '' }, 'name'],
          [{ name: 'x'.repeat(256) }, 'name'],
          [{ name: 'x', description: 'd'.repeat(1001) }, 'description'],
          [{ name: 'x', slug: 'bad slug' }, 'slug'],
          [{ name: 'x', slug: MISSING }, 'slug'],
          [{ name: 'x', defaults: { metadata: { k: 1 } } }, 'defaults.metadata.k'],
          [{ name: 'x', defaults: { is_default: 1 } }, 'defaults.is_default'],
          [{ name: 'x', users: [known, 'not-a-user'] }, 'users[1]'],
          [{ name: 'x', users: [known, MISSING] }, 'users[1]'],
          [{ name: 'x', users: [known, known] }, 'users[1]'],
          [{ name: 'x', usage_limits: [{}, {}] }, 'usage_limits'],
          [{ name: 'x', usage_limits: [{ periodic_reset: 'weekly', periodic_reset_days: 3 }] }, 'usage_limits[0].periodic_reset_days'],
          [{ name: 'x', rate_limits: [{ type: 'requests', unit: 'rps', value: 1 }] }, 'rate_limits[0].unit'],
          [{ name: 'x', rate_limits: [{ type: 'requests', unit: 'rpm', value: 1.5 }] }, 'rate_limits[0].value'],
          [{ name: 'x', surprise: 1 }, 'surprise'],
        ];
        for (const [body, param] of cases) await expectParam('POST', '/admin/workspaces', body, param);
        const stray = await db().select().from(workspaces).where(eq(workspaces.name, 'x'));
        assert.equal(stray.length, 0, 'a refused create writes no workspace');
      });

      test('a duplicate slug is a 409', async () => {
        await createWorkspace({ name: 'Slugged', slug: 'slugged' });
        const again = await call('POST', '/admin/workspaces', gateway.adminKey, { name: 'Other', slug: 'slugged' });
        assert.equal(again.status, 409);
        assert.equal(again.body.error.code, 'workspace_slug_taken');
        await audited('workspaces.create', 'failed');
      });

      test('only admin keys create, update and delete workspaces; a workspace key sees only its own', async () => {
        const other = await createWorkspace({ name: 'Elsewhere', slug: 'elsewhere' });
        const workspaceKey = await serviceKey(defaultWorkspaceId);
        const denied = [
          await call('POST', '/admin/workspaces', workspaceKey.key, { name: 'nope' }),
          await call('PUT', `/admin/workspaces/${defaultWorkspaceId}`, workspaceKey.key, { name: 'nope' }),
          await call('DELETE', `/admin/workspaces/${other.id}`, workspaceKey.key),
        ];
        assert.equal(denied[0]!.status, 403);
        assert.equal(denied[0]!.body.error.code, 'admin_key_required');
        assert.equal(denied[1]!.status, 403);
        assert.equal(denied[2]!.status, 403, 'refused before any lookup, so the answer says nothing of the workspace');
        await audited('workspaces.create', 'denied');
        assert.equal((await call('GET', `/admin/workspaces/${defaultWorkspaceId}`, workspaceKey.key)).status, 200);
        assert.equal((await call('GET', `/admin/workspaces/${other.slug}`, workspaceKey.key)).status, 404);
        const list = await call('GET', '/admin/workspaces', workspaceKey.key);
        assert.deepEqual(list.body.data.map((workspace: { id: string }) => workspace.id), [defaultWorkspaceId]);
        assert.equal(list.body.total, 1);
      });

      test('every route needs its scope: 403 naming it, audited as denied', async () => {
        const unscoped = await adminKeyWith(['completions.write']);
        const userPath = `/admin/workspaces/${defaultWorkspaceId}/users`;
        const routes: Array<[string, string, unknown, string]> = [
          ['POST', '/admin/workspaces', { name: 'x' }, 'workspaces.create'],
          ['GET', '/admin/workspaces', undefined, 'workspaces.list'],
          ['GET', `/admin/workspaces/${defaultWorkspaceId}`, undefined, 'workspaces.read'],
          ['PUT', `/admin/workspaces/${defaultWorkspaceId}`, { name: 'x' }, 'workspaces.update'],
          ['DELETE', `/admin/workspaces/${defaultWorkspaceId}`, undefined, 'workspaces.delete'],
          ['POST', userPath, { users: [{ id: MISSING, role: 'member' }] }, 'workspace_users.create'],
          ['GET', userPath, undefined, 'workspace_users.list'],
          ['GET', `${userPath}/${MISSING}`, undefined, 'workspace_users.read'],
          ['PUT', `${userPath}/${MISSING}`, { role: 'member' }, 'workspace_users.update'],
          ['DELETE', `${userPath}/${MISSING}`, undefined, 'workspace_users.delete'],
        ];
        for (const [method, path, body, scope] of routes) {
          const response = await call(method, path, unscoped.key, body);
          assert.equal(response.status, 403, `${method} ${path}`);
          assert.ok(response.body.error.message.includes(scope), response.body.error.message);
          await audited(scope, 'denied');
        }
      });

      test('list: pages, case-sensitive name, exact_name and status filters', async () => {
        await createWorkspace({ name: 'Alpha Team' });
        const all = await call('GET', '/admin/workspaces?page_size=100', gateway.adminKey);
        assert.equal(all.status, 200);
        assert.equal(all.body.object, 'list');
        assert.equal(all.body.total, all.body.data.length);
        assert.equal(all.body.data[0].id, defaultWorkspaceId);
        assert.equal(all.body.data[0].defaults.is_default, 1);
        const paged = await call('GET', '/admin/workspaces?page_size=1&current_page=1', gateway.adminKey);
        assert.deepEqual(paged.body.data.map((workspace: { id: string }) => workspace.id), [all.body.data[1].id]);
        const names = async (query: string) => (await call('GET', `/admin/workspaces?${query}`, gateway.adminKey)).body.data.map((workspace: { name: string }) => workspace.name);
        assert.deepEqual(await names('name=pha%20T'), ['Alpha Team']);
        assert.deepEqual(await names('name=alpha'), []);
        assert.deepEqual(await names('exact_name=Alpha'), []);
        assert.deepEqual(await names('exact_name=Alpha%20Team'), ['Alpha Team']);
        assert.equal((await names('status=active,archived')).length, all.body.total);
        assert.deepEqual(await names('status=archived'), []);
        for (const query of ['status=active,deleted', 'page_size=0', 'current_page=-1']) {
          const response = await call('GET', `/admin/workspaces?${query}`, gateway.adminKey);
          assert.equal(response.status, 400, query);
          assert.equal(response.body.error.param, query.split('=')[0]);
        }
      });

      test('read: by id or slug; unknown is 404; a malformed id is 400', async () => {
        assert.equal((await call('GET', '/admin/workspaces/default', gateway.adminKey)).body.id, defaultWorkspaceId);
        assert.equal((await call('GET', `/admin/workspaces/${MISSING}`, gateway.adminKey)).status, 404);
        const malformed = await call('GET', '/admin/workspaces/no.such', gateway.adminKey);
        assert.equal(malformed.status, 400);
        assert.equal(malformed.body.error.param, 'workspaceId');
      });

      test('update: fields change, defaults merge key by key, bad bodies name the field', async () => {
        const created = await createWorkspace({ name: 'Before', defaults: { metadata: { a: '1' } } });
        const path = `/admin/workspaces/${created.id}`;
        const updated = await call('PUT', path, gateway.adminKey, {
          name: 'After',
          description: null,
          defaults: { input_guardrails: ['pg-pii-123456'], user_api_key_config: 'pc-conf-abcdef' },
          rate_limits: [{ type: 'tokens', unit: 'rph', value: 5 }],
        });
        assert.equal(updated.status, 200);
        assert.deepEqual(updated.body, {});
        const fetched = (await call('GET', path, gateway.adminKey)).body;
        assert.equal(fetched.name, 'After');
        assert.equal(fetched.description, null);
        assert.deepEqual(fetched.defaults, { metadata: { a: '1' }, is_default: 0, input_guardrails: ['pg-pii-123456'], output_guardrails: [], user_api_key_config: 'pc-conf-abcdef', log_bodies: true });
        assert.deepEqual(fetched.rate_limits, [{ type: 'tokens', unit: 'rph', value: 5 }]);
        assert.equal((await call('PUT', path, gateway.adminKey, { defaults: { user_api_key_config: null } })).status, 200);
        assert.equal((await call('GET', path, gateway.adminKey)).body.defaults.user_api_key_config, null);
        await audited('workspaces.update', 'success', created.id);
        const cases: Array<[unknown, string]> = [
          [{ name: '' }, 'name'],
          [{ slug: 'new' }, 'slug'],
          [{ defaults: { input_guardrails: 'pg-x' } }, 'defaults.input_guardrails'],
          [{ defaults: { user_api_key_config: 5 } }, 'defaults.user_api_key_config'],
          [{ defaults: { log_bodies: 'no' } }, 'defaults.log_bodies'],
          [{ rate_limits: [{ type: 'requests', unit: 'rpm', value: -1 }] }, 'rate_limits[0].value'],
          [{ usage_limits: [{ type: 'money' }] }, 'usage_limits[0].type'],
        ];
        for (const [body, param] of cases) await expectParam('PUT', path, body, param);
        assert.equal((await call('PUT', `/admin/workspaces/${MISSING}`, gateway.adminKey, { name: 'x' })).status, 404);
      });

      test('delete: not the default workspace, not one with API keys; members go with it', async () => {
        const refused = await call('DELETE', `/admin/workspaces/${defaultWorkspaceId}`, gateway.adminKey);
        assert.equal(refused.status, 400);
        assert.equal(refused.body.error.code, 'default_workspace');
        const member = await newUser('leaving@example.com');
        const created = await createWorkspace({ name: 'Doomed', users: [member] });
        const workspaceKey = await serviceKey(created.id);
        const withKeys = await call('DELETE', `/admin/workspaces/${created.id}`, gateway.adminKey);
        assert.equal(withKeys.status, 409);
        assert.match(withKeys.body.error.message, /still has 1 API key\b/);
        await audited('workspaces.delete', 'failed');
        assert.equal((await call('DELETE', `/api-keys/${workspaceKey.id}`, gateway.adminKey)).status, 200);
        const deleted = await call('DELETE', `/admin/workspaces/${created.id}`, gateway.adminKey);
        assert.equal(deleted.status, 200);
        assert.equal(deleted.body, undefined, 'workspace delete answers with no body');
        assert.equal((await call('GET', `/admin/workspaces/${created.id}`, gateway.adminKey)).status, 404);
        assert.equal((await db().select().from(workspaceMembers).where(eq(workspaceMembers.workspaceId, created.id))).length, 0);
        await audited('workspaces.delete', 'success', created.id);
        assert.equal((await call('DELETE', `/admin/workspaces/${created.id}`, gateway.adminKey)).status, 404);
      });
    });

    describe('workspace members', () => {
      let team: { id: string; slug: string };
      let manager: string;
      let member: string;
      let managerKey: { id: string; key: string };
      let memberKey: { id: string; key: string };
      let path: string;

      before(async () => {
        team = await createWorkspace({ name: 'Team', slug: 'team' });
        path = `/admin/workspaces/${team.id}/users`;
        manager = await newUser('manager@example.com');
        member = await newUser('Member@Example.com');
        const added = await call('POST', `/admin/workspaces/team/users`, gateway.adminKey, { users: [{ id: manager, role: 'manager' }, { id: member, role: 'member' }] });
        assert.equal(added.status, 200, JSON.stringify(added.body));
        assert.deepEqual(added.body, {});
        managerKey = await userKey(team.id, manager);
        memberKey = await userKey(team.id, member);
      });

      test('an admin adds members; they read back as WorkspaceMember; it is audited', async () => {
        const one = await call('GET', `${path}/${member}`, gateway.adminKey);
        assert.equal(one.status, 200);
        const { created_at: createdAt, last_updated_at: updatedAt, ...rest } = one.body;
        assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
        assert.deepEqual(rest, {
          object: 'workspace-user', id: member, first_name: 'F', last_name: 'L', org_role: 'member', role: 'member',
          status: 'active', workspace_id: team.id, email: 'Member@Example.com', scopes: [], settings: null,
        });
        await audited('workspace_users.create', 'success', `${manager},${member}`);
      });

      test('bad bodies name the field; unknown users are 404 and existing members 409, all or nothing', async () => {
        const fresh = await newUser('fresh@example.com');
        const cases: Array<[unknown, string]> = [
          [{}, 'users'],
          [{ users: [] }, 'users'],
          [{ users: Array.from({ length: 101 }, () => ({ id: fresh, role: 'member' })) }, 'users'],
          [{ users: [{ id: 'x', role: 'member' }] }, 'users[0].id'],
          [{ users: [{ id: fresh, role: 'owner' }] }, 'users[0].role'],
          [{ users: [{ id: fresh, role: 'member', extra: 1 }] }, 'users[0].extra'],
          [{ users: [{ id: fresh, role: 'member' }, { id: fresh, role: 'admin' }] }, 'users[1].id'],
        ];
        for (const [body, param] of cases) await expectParam('POST', path, body, param);
        await expectParam('POST', path, { users: [{ id: fresh, role: 'member' }, { id: MISSING, role: 'member' }] }, 'users[1].id', 404);
        await expectParam('POST', path, { users: [{ id: fresh, role: 'member' }, { id: member, role: 'member' }] }, 'users[1].id', 409);
        assert.equal((await call('GET', `${path}/${fresh}`, gateway.adminKey)).status, 404, 'nobody was added');
        await audited('workspace_users.create', 'failed');
        await expectParam('POST', `/admin/workspaces/${MISSING}/users`, { users: [{ id: fresh, role: 'member' }] }, null as unknown as string, 404);
      });

      test('a member\'s key cannot add members; a manager\'s can, in its own workspace only', async () => {
        const newcomer = await newUser('newcomer@example.com');
        const byMember = await call('POST', path, memberKey.key, { users: [{ id: newcomer, role: 'member' }] });
        assert.equal(byMember.status, 403);
        assert.equal(byMember.body.error.code, 'workspace_manager_required');
        await audited('workspace_users.create', 'denied');
        assert.equal((await call('POST', path, managerKey.key, { users: [{ id: newcomer, role: 'member' }] })).status, 200);
        const elsewhere = await call('POST', `/admin/workspaces/${defaultWorkspaceId}/users`, managerKey.key, { users: [{ id: newcomer, role: 'member' }] });
        assert.equal(elsewhere.status, 404);
        assert.equal((await call('GET', `/admin/workspaces/${defaultWorkspaceId}/users`, managerKey.key)).status, 404);
      });

      test('a workspace service key manages resources, not people: adding members is a 403', async () => {
        const newcomer = await newUser('service-denied@example.com');
        const service = await serviceKey(team.id);
        const denied = await call('POST', path, service.key, { users: [{ id: newcomer, role: 'member' }] });
        assert.equal(denied.status, 403);
        assert.equal(denied.body.error.code, 'workspace_manager_required');
      });

      test('list: anyone in the workspace reads it; role and email filters; pages', async () => {
        const list = await call('GET', path, memberKey.key);
        assert.equal(list.status, 200);
        assert.equal(list.body.object, 'list');
        assert.equal(list.body.total, list.body.data.length);
        const ids = async (query: string) => (await call('GET', `${path}?${query}`, gateway.adminKey)).body.data.map((user: { id: string }) => user.id);
        assert.deepEqual(await ids('role=manager'), [manager]);
        assert.deepEqual(await ids('email=member%40example.com'), [member]);
        assert.deepEqual(await ids('page_size=1&current_page=1'), [(await ids('page_size=100'))[1]]);
        await expectParam('GET', `${path}?role=owner`, undefined, 'role');
        await expectParam('GET', `${path}?page_size=101`, undefined, 'page_size');
        await expectParam('GET', `${path}/not-a-uuid`, undefined, 'userId');
        assert.equal((await call('GET', `${path}/${MISSING}`, gateway.adminKey)).status, 404);
      });

      test('a role change takes effect on the user\'s cached key at once', async () => {
        const target = await newUser('promoted@example.com');
        assert.equal((await call('POST', path, gateway.adminKey, { users: [{ id: target, role: 'member' }] })).status, 200);
        const targetKey = await userKey(team.id, target);
        const probe = { users: [{ id: await newUser('probe@example.com'), role: 'member' }] };
        assert.equal((await call('POST', path, targetKey.key, probe)).status, 403, 'a member (and now cached)');
        assert.equal((await call('PUT', `${path}/${target}`, memberKey.key, { role: 'manager' })).status, 403);
        const promoted = await call('PUT', `${path}/${target}`, gateway.adminKey, { role: 'manager' });
        assert.equal(promoted.status, 200);
        assert.deepEqual(promoted.body, {});
        assert.equal((await call('GET', `${path}/${target}`, gateway.adminKey)).body.role, 'manager');
        assert.equal((await call('POST', path, targetKey.key, probe)).status, 200, 'the cached principal was dropped');
        await audited('workspace_users.update', 'success', target);
        await expectParam('PUT', `${path}/${target}`, { role: 'owner' }, 'role');
        await expectParam('PUT', `${path}/${target}`, {}, 'role');
        assert.equal((await call('PUT', `${path}/${MISSING}`, gateway.adminKey, { role: 'member' })).status, 404);
      });

      test('removal deletes the user\'s keys of the workspace, and says so in the audit record', async () => {
        const leaver = await newUser('leaver@example.com');
        assert.equal((await call('POST', path, gateway.adminKey, { users: [{ id: leaver, role: 'manager' }] })).status, 200);
        const leaverKey = await userKey(team.id, leaver);
        assert.equal((await call('GET', path, leaverKey.key)).status, 200);
        const self = await call('DELETE', `${path}/${leaver}`, leaverKey.key);
        assert.equal(self.status, 400);
        assert.equal(self.body.error.code, 'cannot_remove_self');
        assert.equal((await call('DELETE', `${path}/${leaver}`, memberKey.key)).status, 403);
        const removed = await call('DELETE', `${path}/${leaver}`, managerKey.key);
        assert.equal(removed.status, 200);
        assert.deepEqual(removed.body, {});
        assert.equal((await call('GET', path, leaverKey.key)).status, 401, 'the removed user\'s key is gone');
        assert.equal((await call('GET', `/api-keys/${leaverKey.id}`, gateway.adminKey)).status, 404);
        await audited('workspace_users.delete', 'success', `${leaver};deleted_api_keys=${leaverKey.id}`);
        assert.equal((await call('DELETE', `${path}/${leaver}`, gateway.adminKey)).status, 404);
      });
    });
  });
}
