/**
 * SCIM group mappings over HTTP, on every back-end: grants and denials, validation, archive, audit; and the
 * mappings at work: a JWT whose `groups` claim names a mapped group reaches the workspace with the mapped role.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { applyScimGroups } from '../../src/domain/scim/apply-scim-groups.ts';
import { auditLogs, users, workspaceMembers } from '../../src/storage/schema.ts';
import { scimGroups, scimWorkspaceGroups } from '../../src/storage/schema/scim.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server.ts';

const ISSUER = 'https://idp.example.com/';
const AUDIENCE = 'ai-gateway';
const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['workspace_users.create', 'workspace_users.list', 'workspace_users.delete'];

for (const backend of testBackends()) {
  describe(`scim mappings on ${backend.name}`, () => {
    let gateway: TestGateway;
    let jwks: JwksServer;
    let call: ReturnType<typeof adminClient>;
    let A: string; // the default workspace
    let B: { id: string; slug: string };
    let workspaceKey: string;
    let scopelessAdminKey: string;
    let adminUserId: string;
    const db = () => gateway.gateway.database.db;
    const organisationId = () => gateway.gateway.bootstrap.organisation.id;

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }

    async function newUser(email: string, role = 'member'): Promise<string> {
      const [row] = await db().insert(users).values({ organisationId: organisationId(), email, role }).returning();
      return row!.id;
    }

    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    async function roleIn(workspaceId: string, userId: string): Promise<string | undefined> {
      const rows = await db().select().from(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
      return rows[0]?.role;
    }

    /** a fresh token each time (jti), so no cached sign-in answers for it */
    const token = (claims: Record<string, unknown>) => jwks.sign({ jti: randomUUID(), ...claims });

    /** what a signed-in user sees of workspace B: 200 when a member, 401 otherwise */
    async function reachB(userId: string, groups?: unknown) {
      const claims = { sub: userId, workspace_id: B.slug, scope: 'workspaces.read', ...(groups === undefined ? {} : { groups }) };
      return call('GET', `/admin/workspaces/${B.slug}`, await token(claims));
    }

    before(async () => {
      jwks = await startJwksServer({ issuer: ISSUER, audience: AUDIENCE });
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
      workspaceKey = (await ok('POST', '/api-keys/workspace/service', { name: 'ws', scopes: SCOPES, workspace_id: A })).key;
      scopelessAdminKey = (await ok('POST', '/api-keys/organisation/service', { name: 'no scim', scopes: ['workspaces.list'] })).key;
      adminUserId = await newUser('admin@example.com', 'admin');
      await ok('PUT', '/admin/organisation', { settings: { jwt: { jwks_url: jwks.url, issuer: ISSUER, audience: AUDIENCE } } });
    });

    after(() => closeAll(() => gateway?.close(), () => jwks?.close()));

    test('an admin key maps a group by name (pre-creating it), then by id; both are listed and audited', async () => {
      const byName = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'member', scim_group_name: 'Readers' });
      assert.deepEqual(Object.keys(byName).sort(), ['id', 'role', 'scim_group', 'scim_group_id', 'workspace_id']);
      assert.equal(byName.workspace_id, B.id);
      assert.equal(byName.scim_group, 'Readers');
      assert.equal(byName.role, 'member');
      const [group] = await db().select().from(scimGroups).where(eq(scimGroups.id, byName.scim_group_id));
      assert.equal(group?.displayName, 'Readers');
      assert.equal(group?.externalId, null);
      const byId = await ok('POST', '/scim/workspaces', { workspace_id: A, role: 'manager', scim_group_id: byName.scim_group_id });
      assert.equal(byId.scim_group_id, byName.scim_group_id);
      assert.equal(byId.scim_group, 'Readers');
      const list = await ok('GET', `/scim/workspaces?scim_group_id=${byName.scim_group_id}`);
      assert.equal(list.object, 'list');
      assert.equal(list.total, 2);
      assert.equal(list.total_count, 2);
      assert.deepEqual(list.mappings, list.data);
      assert.deepEqual(new Set(list.data.map((row: { id: string }) => row.id)), new Set([byName.id, byId.id]));
      await audited('scim_workspaces.create', 'success', byName.id);
      await audited('scim_workspaces.create', 'success', byId.id);
      await ok('DELETE', `/scim/workspaces/${byId.id}`);
      // the same name again reuses the group
      const again = await ok('POST', '/scim/workspaces', { workspace_id: A, role: 'admin', scim_group_name: 'Readers' });
      assert.equal(again.scim_group_id, byName.scim_group_id);
      for (const id of [byName.id, again.id]) await ok('DELETE', `/scim/workspaces/${id}`);
    });

    test('list filters and pages: workspace (id or slug), group, role; bad filters are 400s naming them', async () => {
      const one = await ok('POST', '/scim/workspaces', { workspace_id: B.id, role: 'manager', scim_group_name: 'Filter One' });
      const two = await ok('POST', '/scim/workspaces', { workspace_id: A, role: 'member', scim_group_name: 'Filter Two' });
      assert.deepEqual((await ok('GET', `/scim/workspaces?workspace_id=${B.slug}`)).data.map((row: { id: string }) => row.id), [one.id]);
      assert.deepEqual((await ok('GET', `/scim/workspaces?workspace_id=${A}&role=member`)).data.map((row: { id: string }) => row.id), [two.id]);
      assert.equal((await ok('GET', '/scim/workspaces?role=admin')).total, 0);
      const paged = await ok('GET', '/scim/workspaces?page_size=1&current_page=1');
      assert.equal(paged.total, 2);
      assert.equal(paged.data.length, 1);
      for (const [query, param, status] of [
        ['role=owner', 'role', 400], ['scim_group_id=nope', 'scim_group_id', 400], ['page_size=0', 'page_size', 400],
      ] as const) {
        const response = await call('GET', `/scim/workspaces?${query}`, gateway.adminKey);
        assert.equal(response.status, status, query);
        assert.equal(response.body.error.param, param, query);
      }
      assert.equal((await call('GET', '/scim/workspaces?workspace_id=no-such-workspace', gateway.adminKey)).status, 404);
      for (const id of [one.id, two.id]) await ok('DELETE', `/scim/workspaces/${id}`);
    });

    test('bad bodies are 400s naming the field; unknown workspace or group 404; a second mapping 409; nothing left behind', async () => {
      const before = (await db().select().from(scimWorkspaceGroups)).length;
      const cases: Array<[unknown, string]> = [
        [{ role: 'member', scim_group_name: 'x' }, 'workspace_id'],
        [{ workspace_id: 'bad slug!', role: 'member', scim_group_name: 'x' }, 'workspace_id'],
        [{ workspace_id: B.slug, scim_group_name: 'x' }, 'role'],
        [{ workspace_id: B.slug, role: 'owner', scim_group_name: 'x' }, 'role'],
        [{ workspace_id: B.slug, role: 'member' }, 'scim_group_id'],
        [{ workspace_id: B.slug, role: 'member', scim_group_id: MISSING, scim_group_name: 'x' }, 'scim_group_name'],
        [{ workspace_id: B.slug, role: 'member', scim_group_id: 'not-a-uuid' }, 'scim_group_id'],
        [{ workspace_id: B.slug, role: 'member', scim_group_name: '' }, 'scim_group_name'],
        [{ workspace_id: B.slug, role: 'member', scim_group_name: 'x', extra: 1 }, 'extra'],
      ];
      for (const [body, param] of cases) {
        const response = await call('POST', '/scim/workspaces', gateway.adminKey, body);
        assert.equal(response.status, 400, `${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      }
      const noWorkspace = await call('POST', '/scim/workspaces', gateway.adminKey, { workspace_id: 'nowhere', role: 'member', scim_group_name: 'x' });
      assert.equal(noWorkspace.status, 404);
      assert.equal(noWorkspace.body.error.param, 'workspace_id');
      const noGroup = await call('POST', '/scim/workspaces', gateway.adminKey, { workspace_id: B.slug, role: 'member', scim_group_id: MISSING });
      assert.equal(noGroup.status, 404);
      assert.equal(noGroup.body.error.code, 'scim_group_not_found');
      assert.equal((await db().select().from(scimWorkspaceGroups)).length, before);
      const first = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'member', scim_group_name: 'Twice' });
      const second = await call('POST', '/scim/workspaces', gateway.adminKey, { workspace_id: B.id, role: 'admin', scim_group_name: 'Twice' });
      assert.equal(second.status, 409);
      assert.equal(second.body.error.code, 'scim_mapping_exists');
      await audited('scim_workspaces.create', 'failed');
      await ok('DELETE', `/scim/workspaces/${first.id}`);
      // archived: the group may be mapped to the workspace again
      const third = await ok('POST', '/scim/workspaces', { workspace_id: B.id, role: 'admin', scim_group_name: 'Twice' });
      await ok('DELETE', `/scim/workspaces/${third.id}`);
    });

    test('DELETE archives: {success: true}, no longer listed, a second DELETE 404, a bad id 400; audited', async () => {
      const mapping = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'member', scim_group_name: 'Archived' });
      assert.deepEqual(await ok('DELETE', `/scim/workspaces/${mapping.id}`), { success: true });
      const [row] = await db().select().from(scimWorkspaceGroups).where(eq(scimWorkspaceGroups.id, mapping.id));
      assert.equal(row?.status, 'archived');
      assert.equal((await ok('GET', `/scim/workspaces?scim_group_id=${mapping.scim_group_id}`)).total, 0);
      assert.equal((await call('DELETE', `/scim/workspaces/${mapping.id}`, gateway.adminKey)).status, 404);
      const bad = await call('DELETE', '/scim/workspaces/nope', gateway.adminKey);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.param, 'scimWorkspaceGroupId');
      await audited('scim_workspaces.delete', 'success', mapping.id);
      await audited('scim_workspaces.delete', 'failed');
    });

    test('admin keys only: a workspace key is a 403, a key without the scope a 403 naming it; both audited as denied', async () => {
      const mapping = await ok('POST', '/scim/workspaces', { workspace_id: A, role: 'member', scim_group_name: 'Guarded' });
      const attempts: Array<[string, string, unknown, string]> = [
        ['GET', '/scim/workspaces', undefined, 'scim_workspaces.list'],
        ['POST', '/scim/workspaces', { workspace_id: A, role: 'admin', scim_group_name: 'Sneaky' }, 'scim_workspaces.create'],
        ['DELETE', `/scim/workspaces/${mapping.id}`, undefined, 'scim_workspaces.delete'],
      ];
      for (const [method, path, body, action] of attempts) {
        const byWorkspaceKey = await call(method, path, workspaceKey, body);
        assert.equal(byWorkspaceKey.status, 403, `${method} ${path}: ${JSON.stringify(byWorkspaceKey.body)}`);
        assert.equal(byWorkspaceKey.body.error.code, 'admin_key_required');
        const withoutScope = await call(method, path, scopelessAdminKey, body);
        assert.equal(withoutScope.status, 403, `${method} ${path}`);
        assert.equal(withoutScope.body.error.code, 'missing_scope');
        assert.match(withoutScope.body.error.message, /workspace_users\./);
        assert.equal((await call(method, path, undefined, body)).status, 401);
        await audited(action, 'denied');
      }
      const groups = await db().select().from(scimGroups).where(eq(scimGroups.displayName, 'Sneaky'));
      assert.equal(groups.length, 0, 'a refused create pre-creates no group');
      await ok('DELETE', `/scim/workspaces/${mapping.id}`);
    });

    test('an organisation admin\'s JWT manages mappings; a workspace manager\'s JWT is refused', async () => {
      const adminToken = await token({ sub: adminUserId, scope: SCOPES.join(' ') });
      const created = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'member', scim_group_name: 'By JWT' }, adminToken);
      assert.equal((await ok('GET', '/scim/workspaces', undefined, adminToken)).total, 1);
      const managerId = await newUser('ws-manager@example.com');
      await ok('POST', `/admin/workspaces/${B.id}/users`, { users: [{ id: managerId, role: 'manager' }] });
      const managerToken = await token({ sub: managerId, workspace_id: B.slug, scope: SCOPES.join(' ') });
      const refused = await call('DELETE', `/scim/workspaces/${created.id}`, managerToken);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'admin_key_required');
      assert.deepEqual(await ok('DELETE', `/scim/workspaces/${created.id}`, undefined, adminToken), { success: true });
      const [record] = await db().select().from(auditLogs).where(and(eq(auditLogs.action, 'scim_workspaces.create'), eq(auditLogs.resourceId, created.id)));
      assert.equal(record?.userId, adminUserId);
    });

    test('a JWT naming a mapped group reaches the workspace with the mapped role; one without does not', async () => {
      const engineers = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'manager', scim_group_name: 'Engineering' });
      const alice = await newUser('alice@example.com');
      const bob = await newUser('bob@example.com');

      const refusedWithoutClaim = await reachB(bob);
      assert.equal(refusedWithoutClaim.status, 401);
      assert.equal(refusedWithoutClaim.body.error.code, 'not_a_member');
      assert.equal((await reachB(bob, ['Sales', 42])).status, 401, 'an unmapped group grants nothing');
      assert.equal(await roleIn(B.id, bob), undefined);

      const reached = await reachB(alice, ['Engineering']);
      assert.equal(reached.status, 200, JSON.stringify(reached.body));
      assert.equal(await roleIn(B.id, alice), 'manager');
      const member = reached.body.users.find((user: { id: string }) => user.id === alice);
      assert.equal(member?.role, 'manager');
      // the group may also be named by its id
      assert.equal((await reachB(alice, [engineers.scim_group_id])).status, 200);
      assert.equal(await roleIn(B.id, alice), 'manager');
      await ok('DELETE', `/scim/workspaces/${engineers.id}`);
    });

    test('highest role wins; leaving a group lowers the role; archiving the last mapping revokes the membership and its user keys', async () => {
      const engineers = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'member', scim_group_name: 'Eng' });
      const leads = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'admin', scim_group_name: 'Leads' });
      const carol = await newUser('carol@example.com');
      assert.equal((await reachB(carol, ['Eng', 'Leads'])).status, 200);
      assert.equal(await roleIn(B.id, carol), 'admin');
      assert.equal((await reachB(carol, ['Eng'])).status, 200);
      assert.equal(await roleIn(B.id, carol), 'member', 'the Leads grant was withdrawn');

      const userKey = (await ok('POST', '/api-keys/workspace/user', { name: 'carol', scopes: ['workspaces.read'], workspace_id: B.id, user_id: carol })).key;
      assert.equal((await call('GET', `/admin/workspaces/${B.id}`, userKey)).status, 200);
      await ok('DELETE', `/scim/workspaces/${leads.id}`);
      assert.equal(await roleIn(B.id, carol), 'member', 'Leads held no grant of carol any more');
      await ok('DELETE', `/scim/workspaces/${engineers.id}`);
      assert.equal(await roleIn(B.id, carol), undefined, 'the last grant gone, the membership goes');
      assert.equal((await call('GET', `/admin/workspaces/${B.id}`, userKey)).status, 401, 'the user key went with the membership');
      const refused = await reachB(carol, ['Eng']);
      assert.equal(refused.status, 401, 'an archived mapping grants nothing');
    });

    test('a membership given by hand is never changed or revoked by SCIM', async () => {
      const leads = await ok('POST', '/scim/workspaces', { workspace_id: B.slug, role: 'admin', scim_group_name: 'Hand Leads' });
      const dave = await newUser('dave@example.com');
      await ok('POST', `/admin/workspaces/${B.id}/users`, { users: [{ id: dave, role: 'member' }] });
      assert.equal((await reachB(dave, ['Hand Leads'])).status, 200);
      assert.equal(await roleIn(B.id, dave), 'member');
      assert.equal((await reachB(dave, [])).status, 200);
      await ok('DELETE', `/scim/workspaces/${leads.id}`);
      assert.equal(await roleIn(B.id, dave), 'member');
    });

    test('applyScimGroups: the domain function any provisioning path calls', async () => {
      const mapping = await ok('POST', '/scim/workspaces', { workspace_id: A, role: 'manager', scim_group_name: 'Provisioned' });
      await db().update(scimGroups).set({ externalId: 'okta-00g1' }).where(eq(scimGroups.id, mapping.scim_group_id));
      const erin = await newUser('erin@example.com');
      const granted = await applyScimGroups(db(), { organisationId: organisationId(), userId: erin, groups: [null, 'okta-00g1', 'okta-00g1'] });
      assert.deepEqual(granted, [{ workspaceId: A, role: 'manager', deletedKeyIds: [] }]);
      assert.equal(await roleIn(A, erin), 'manager');
      const other = await applyScimGroups(db(), { organisationId: MISSING, userId: erin, groups: ['okta-00g1'] });
      assert.deepEqual(other, [{ workspaceId: A, role: null, deletedKeyIds: [] }], 'another organisation\'s mapping never matches');
      assert.equal(await roleIn(A, erin), undefined);
      await ok('DELETE', `/scim/workspaces/${mapping.id}`);
    });
  });
}
