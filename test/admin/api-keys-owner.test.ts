/**
 * The seed's workspace-key body (`{name, workspace_id, scopes}`, no `user_id`) on POST /api-keys/workspace/user:
 * the key belongs to the caller's user (the organisation owner for the bootstrap admin key, the user behind a
 * user key or a JWT); a caller with no user gets a 400 naming `user_id`. Also: the owner user the bootstrap
 * creates, and organisation owners/admins holding user keys of workspaces they are not members of.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { request } from 'undici';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { DEFAULT_OWNER_EMAIL, loadConfig } from '../../src/config/index.ts';
import { bootstrap } from '../../src/domain/bootstrap.ts';
import { insertWorkspace } from '../../src/storage/repositories/organisations.ts';
import { apiKeys, users, workspaceMembers } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import { TEST_ADMIN_KEY, type TestGateway } from '../helpers/gateway.ts';
import { startJwksServer, type JwksServer } from '../helpers/jwks-server.ts';

const OWNER_EMAIL = 'boss@example.com';
const ISSUER = 'https://idp.example.com/';
const AUDIENCE = 'ai-gateway';
const WORKSPACE_SCOPES = ALL_SCOPES.filter((scope) => scope.startsWith('workspace_') || scope === 'completions.write');

test('GATEWAY_OWNER_EMAIL: a documented default, lower-cased, and a malformed value stops the start', () => {
  assert.equal(loadConfig({}).ownerEmail, DEFAULT_OWNER_EMAIL);
  assert.match(DEFAULT_OWNER_EMAIL, /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
  assert.equal(loadConfig({ GATEWAY_OWNER_EMAIL: ' Boss@Example.COM ' }).ownerEmail, 'boss@example.com');
  assert.throws(() => loadConfig({ GATEWAY_OWNER_EMAIL: 'not-an-email' }), /GATEWAY_OWNER_EMAIL/);
});

for (const backend of testBackends()) {
  describe(`workspace user keys without user_id [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let jwks: JwksServer;
    let call: ReturnType<typeof adminClient>;
    let workspaceId: string;
    let otherWorkspaceId: string;
    let managerId: string;

    const db = () => gateway.gateway.database.db;
    const organisationId = () => gateway.gateway.bootstrap.organisation.id;
    const seedBody = () => ({ name: 'seed', workspace_id: workspaceId, scopes: ['completions.write'] });

    before(async () => {
      jwks = await startJwksServer({ issuer: ISSUER, audience: AUDIENCE });
      upstream = await startFakeUpstream();
      gateway = await startBackendGateway(backend, { env: { GATEWAY_OWNER_EMAIL: OWNER_EMAIL } });
      call = adminClient(gateway.baseURL);
      workspaceId = gateway.gateway.bootstrap.workspace.id;
      otherWorkspaceId = (await insertWorkspace(db(), { organisationId: organisationId(), name: 'Other', slug: 'other' })).id;
      const [manager] = await db().insert(users).values({ organisationId: organisationId(), email: 'manager@example.com', role: 'member' }).returning();
      managerId = manager!.id;
      await db().insert(workspaceMembers).values({ workspaceId, userId: managerId, role: 'manager' });
      const configured = await call('PUT', '/admin/organisation', gateway.adminKey, { settings: { jwt: { jwks_url: jwks.url, issuer: ISSUER, audience: AUDIENCE } } });
      assert.equal(configured.status, 200, JSON.stringify(configured.body));
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close(), () => jwks?.close()));

    async function chat(key: string): Promise<number> {
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.body.text();
      return response.statusCode;
    }

    async function keyOwner(id: string): Promise<string | null> {
      const fetched = await call('GET', `/api-keys/${id}`, gateway.adminKey);
      assert.equal(fetched.status, 200, JSON.stringify(fetched.body));
      return fetched.body.user_id;
    }

    async function createUserKey(callerKey: string, body: Record<string, unknown>) {
      return call('POST', '/api-keys/workspace/user', callerKey, body);
    }

    test('the bootstrap made the owner a user: one owner, with GATEWAY_OWNER_EMAIL, in the bootstrap result', async () => {
      const owners = await call('GET', '/admin/users?role=owner', gateway.adminKey);
      assert.equal(owners.status, 200);
      assert.equal(owners.body.total, 1);
      assert.equal(owners.body.data[0].email, OWNER_EMAIL);
      assert.equal(owners.body.data[0].id, gateway.gateway.bootstrap.owner.id);
    });

    test('the bootstrap admin key is linked to the owner user', async () => {
      const list = await call('GET', '/api-keys?page_size=100', gateway.adminKey);
      const bootstrapKey = list.body.data.find((key: { name: string }) => key.name === 'Bootstrap admin key');
      assert.ok(bootstrapKey, 'the bootstrap key is listed');
      assert.equal(bootstrapKey.user_id, gateway.gateway.bootstrap.owner.id);
    });

    test('the seed body with the bootstrap admin key: a user key owned by the owner, who is no member; it works', async () => {
      const created = await createUserKey(gateway.adminKey, seedBody());
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(await keyOwner(created.body.id), gateway.gateway.bootstrap.owner.id);
      const fetched = await call('GET', `/api-keys/${created.body.id}`, gateway.adminKey);
      assert.equal(fetched.body.type, 'workspace-user');
      assert.equal(fetched.body.workspace_id, workspaceId);
      assert.equal(await chat(created.body.key), 200);
      // the key acts with the owner's organisation role: manager rights in a workspace it is no member of
      const child = await call('POST', '/api-keys/workspace/service', created.body.key, { name: 'child', scopes: ['completions.write'], workspace_id: workspaceId });
      assert.equal(child.status, 403, 'completions.write only: no create scope');
      const scoped = await createUserKey(gateway.adminKey, { ...seedBody(), scopes: WORKSPACE_SCOPES });
      const byOwnerKey = await call('POST', '/api-keys/workspace/service', scoped.body.key, { name: 'child', scopes: ['completions.write'], workspace_id: workspaceId });
      assert.equal(byOwnerKey.status, 200, JSON.stringify(byOwnerKey.body));
    });

    test('the seed body by workspace slug works too', async () => {
      const created = await createUserKey(gateway.adminKey, { ...seedBody(), workspace_id: 'other' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const fetched = await call('GET', `/api-keys/${created.body.id}`, gateway.adminKey);
      assert.equal(fetched.body.workspace_id, otherWorkspaceId);
      assert.equal(fetched.body.user_id, gateway.gateway.bootstrap.owner.id);
    });

    test('a JWT caller without user_id gets a key of their own', async () => {
      const token = await jwks.sign({ sub: managerId, workspace_id: 'default', scope: 'completions.write workspace_user_api_keys.create' });
      const created = await createUserKey(token, seedBody());
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(await keyOwner(created.body.id), managerId);
    });

    test('a user key caller without user_id gets a key of its own user', async () => {
      const managerKey = await createUserKey(gateway.adminKey, { ...seedBody(), scopes: WORKSPACE_SCOPES, user_id: managerId });
      assert.equal(managerKey.status, 200, JSON.stringify(managerKey.body));
      const created = await createUserKey(managerKey.body.key, seedBody());
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(await keyOwner(created.body.id), managerId);
    });

    test('callers with no user of their own: a 400 naming user_id', async () => {
      const service = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'svc', scopes: WORKSPACE_SCOPES, workspace_id: workspaceId });
      assert.equal(service.status, 200, JSON.stringify(service.body));
      const byService = await createUserKey(service.body.key, seedBody());
      assert.equal(byService.status, 400, JSON.stringify(byService.body));
      assert.equal(byService.body.error.param, 'user_id');
      const admin = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'ops', scopes: ['workspace_user_api_keys.create', 'completions.write'] });
      assert.equal(admin.status, 200, JSON.stringify(admin.body));
      const byAdmin = await createUserKey(admin.body.key, seedBody());
      assert.equal(byAdmin.status, 400, JSON.stringify(byAdmin.body));
      assert.equal(byAdmin.body.error.param, 'user_id');
    });

    test('an explicit user_id keeps working; a plain member of another workspace is still refused', async () => {
      const created = await createUserKey(gateway.adminKey, { ...seedBody(), user_id: managerId });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(await keyOwner(created.body.id), managerId);
      const notMember = await createUserKey(gateway.adminKey, { ...seedBody(), workspace_id: otherWorkspaceId, user_id: managerId });
      assert.equal(notMember.status, 400);
      assert.equal(notMember.body.error.param, 'user_id');
      assert.equal(notMember.body.error.code, 'not_a_member');
      const unknown = await createUserKey(gateway.adminKey, { ...seedBody(), user_id: '00000000-0000-4000-8000-000000000000' });
      assert.equal(unknown.status, 404);
      const malformed = await createUserKey(gateway.adminKey, { ...seedBody(), user_id: 'nope' });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error.param, 'user_id');
    });

    test('an organisation admin named by user_id needs no membership; demoted to member, that key goes', async () => {
      const [admin] = await db().insert(users).values({ organisationId: organisationId(), email: 'admin@example.com', role: 'admin' }).returning();
      const created = await createUserKey(gateway.adminKey, { ...seedBody(), workspace_id: otherWorkspaceId, user_id: admin!.id });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(await chat(created.body.key), 200);
      const demoted = await call('PUT', `/admin/users/${admin!.id}`, gateway.adminKey, { role: 'member' });
      assert.equal(demoted.status, 200, JSON.stringify(demoted.body));
      assert.equal(await chat(created.body.key), 401, 'a member who is no member of the workspace keeps no key of it');
      assert.equal((await call('GET', `/api-keys/${created.body.id}`, gateway.adminKey)).status, 404);
    });

    test('the owner bootstrap is idempotent: restarts (concurrent ones too) create no second owner', async () => {
      const results = await Promise.all([
        bootstrap(db(), { adminApiKey: TEST_ADMIN_KEY, ownerEmail: OWNER_EMAIL }),
        bootstrap(db(), { adminApiKey: TEST_ADMIN_KEY, ownerEmail: 'someone-else@example.com' }),
      ]);
      assert.deepEqual(results.map((result) => result.owner.id), [gateway.gateway.bootstrap.owner.id, gateway.gateway.bootstrap.owner.id]);
      const owners = await db().select().from(users).where(and(eq(users.organisationId, organisationId()), eq(users.role, 'owner')));
      assert.equal(owners.length, 1);
      assert.equal(owners[0]!.email, OWNER_EMAIL, 'an owner that exists is kept as it is');
    });

    test('a bootstrap key stored before owners existed is linked on the next start', async () => {
      await db().update(apiKeys).set({ userId: null }).where(eq(apiKeys.createdBy, 'bootstrap'));
      await bootstrap(db(), { adminApiKey: TEST_ADMIN_KEY, ownerEmail: OWNER_EMAIL });
      const rows = await db().select().from(apiKeys).where(eq(apiKeys.createdBy, 'bootstrap'));
      assert.ok(rows.length >= 1);
      assert.ok(rows.every((row) => row.userId === gateway.gateway.bootstrap.owner.id));
    });
  });
}
