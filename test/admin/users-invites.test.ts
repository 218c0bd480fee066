/** Users and user invites over HTTP: invite, accept once, expired/used/cancelled refused, role changes, removal. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLogs, userInvites } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

function tokenOf(link: string): string {
  const url = new URL(link);
  assert.equal(url.pathname, '/v1/admin/users/invites/accept');
  return url.searchParams.get('token')!;
}

for (const backend of testBackends()) {
  describe(`users and invites [${backend.name}]`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;

    before(async () => {
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
    });

    after(() => closeAll(() => gateway?.close()));

    async function invite(email: string, extra: Record<string, unknown> = {}) {
      const response = await call('POST', '/admin/users/invites', gateway.adminKey, { email, role: 'member', workspaces: [{ id: 'default', role: 'manager' }], ...extra });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return { id: response.body.id as string, token: tokenOf(response.body.invite_link) };
    }

    describe('invites', () => {
      test('an invite is accepted once: the user, the membership and a user key are created; the link is then dead', async () => {
        const { id, token } = await invite('Ada@Example.com', { workspace_api_key_details: { scopes: ['completions.write', 'workspace_service_api_keys.create'] } });
        const accepted = await call('POST', '/admin/users/invites/accept', undefined, { token, first_name: 'Ada' });
        assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
        assert.equal(accepted.body.email, 'ada@example.com');
        assert.equal(accepted.body.role, 'member');
        assert.equal(accepted.body.api_keys.length, 1);
        const again = await call('POST', '/admin/users/invites/accept', undefined, { token });
        assert.equal(again.status, 410);
        assert.equal(again.body.error.code, 'invite_accepted');
        const fetched = await call('GET', `/admin/users/invites/${id}`, gateway.adminKey);
        assert.equal(fetched.body.status, 'accepted');
        // the new manager's key creates workspace keys in its workspace
        const created = await call('POST', '/api-keys/workspace/service', accepted.body.api_keys[0].key, { name: 'x', scopes: ['completions.write'], workspace_id: 'default' });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const user = await call('GET', `/admin/users/${accepted.body.id}`, gateway.adminKey);
        assert.deepEqual(user.body.workspace_ids, [gateway.gateway.bootstrap.workspace.id]);
      });

      test('two concurrent acceptances create the user once', async () => {
        const { token } = await invite('twice@example.com');
        const results = await Promise.all([
          call('POST', '/admin/users/invites/accept', undefined, { token }),
          call('POST', '/admin/users/invites/accept', undefined, { token }),
        ]);
        assert.deepEqual(results.map((result) => result.status).sort(), [200, 410]);
        const users = await call('GET', '/admin/users?email=twice@example.com', gateway.adminKey);
        assert.equal(users.body.total, 1);
      });

      test('duplicates are 409: a pending invite, an existing user', async () => {
        await invite('dup@example.com');
        const pending = await call('POST', '/admin/users/invites', gateway.adminKey, { email: 'dup@example.com', role: 'member', workspaces: [] });
        assert.equal(pending.status, 409);
        const existing = await call('POST', '/admin/users/invites', gateway.adminKey, { email: 'ada@example.com', role: 'member', workspaces: [] });
        assert.equal(existing.status, 409);
      });

      test('an expired, a cancelled or an unknown invite is refused; resend gives a new working link', async () => {
        const expired = await invite('late@example.com');
        await gateway.gateway.database.db.update(userInvites).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(userInvites.id, expired.id));
        const refused = await call('POST', '/admin/users/invites/accept', undefined, { token: expired.token });
        assert.equal(refused.status, 410);
        assert.equal(refused.body.error.code, 'invite_expired');
        const listed = await call('GET', '/admin/users/invites?status=expired', gateway.adminKey);
        assert.ok(listed.body.data.some((row: { id: string }) => row.id === expired.id));
        const resent = await call('POST', `/admin/users/invites/${expired.id}/resend`, gateway.adminKey);
        assert.equal(resent.status, 200);
        assert.equal((await call('POST', '/admin/users/invites/accept', undefined, { token: expired.token })).status, 404, 'the old link is dead');
        assert.equal((await call('POST', '/admin/users/invites/accept', undefined, { token: tokenOf(resent.body.inviteLink) })).status, 200);

        const cancelled = await invite('nope@example.com');
        assert.equal((await call('DELETE', `/admin/users/invites/${cancelled.id}`, gateway.adminKey)).status, 200);
        assert.equal((await call('POST', '/admin/users/invites/accept', undefined, { token: cancelled.token })).status, 410);
        assert.equal((await call('POST', `/admin/users/invites/${cancelled.id}/resend`, gateway.adminKey)).status, 409);
        assert.equal((await call('POST', '/admin/users/invites/accept', undefined, { token: 'x'.repeat(43) })).status, 404);
      });

      test('bad bodies name the field', async () => {
        const cases: Array<[unknown, string]> = [
          [{ role: 'member', workspaces: [] }, 'email'],
          [{ email: 'not-an-email', role: 'member', workspaces: [] }, 'email'],
          [{ email: 'a@b.co', role: 'owner', workspaces: [] }, 'role'],
          [{ email: 'a@b.co', role: 'member' }, 'workspaces'],
          [{ email: 'a@b.co', role: 'member', workspaces: [{ id: 'missing', role: 'member' }] }, 'workspaces[0].id'],
          [{ email: 'a@b.co', role: 'member', workspaces: [{ id: 'default', role: 'boss' }] }, 'workspaces[0].role'],
          [{ email: 'a@b.co', role: 'member', workspaces: [], workspace_api_key_details: { scopes: ['bad.scope'] } }, 'workspace_api_key_details.scopes[0]'],
        ];
        for (const [body, param] of cases) {
          const response = await call('POST', '/admin/users/invites', gateway.adminKey, body);
          assert.equal(response.status, 400, JSON.stringify(body));
          assert.equal(response.body.error.param, param, JSON.stringify(response.body));
        }
        assert.equal((await call('POST', '/admin/users/invites/accept', undefined, {})).status, 400);
      });
    });

    describe('users', () => {
      test('list with filters and camelCase or snake_case paging; role change; the owner is protected', async () => {
        const all = await call('GET', '/admin/users?pageSize=100', gateway.adminKey);
        assert.equal(all.status, 200);
        assert.equal(all.body.object, 'list');
        assert.ok(all.body.total >= 2);
        const paged = await call('GET', '/admin/users?page_size=1&current_page=0', gateway.adminKey);
        assert.equal(paged.body.data.length, 1);
        const ada = all.body.data.find((user: { email: string }) => user.email === 'ada@example.com');
        assert.equal((await call('PUT', `/admin/users/${ada.id}`, gateway.adminKey, { role: 'admin' })).status, 200);
        assert.equal((await call('GET', '/admin/users?role=admin', gateway.adminKey)).body.data.some((user: { id: string }) => user.id === ada.id), true);
        assert.equal((await call('PUT', `/admin/users/${ada.id}`, gateway.adminKey, { role: 'owner' })).status, 400);
        assert.equal((await call('GET', '/admin/users?role=boss', gateway.adminKey)).status, 400);
        assert.equal((await call('GET', '/admin/users/not-a-uuid', gateway.adminKey)).status, 400);
        assert.equal((await call('GET', '/admin/users/00000000-0000-4000-8000-000000000000', gateway.adminKey)).status, 404);
      });

      test('removing a user removes their user keys: they stop working at once', async () => {
        const { token } = await invite('leaver@example.com', { workspace_api_key_details: { scopes: ['completions.write', 'workspace_service_api_keys.list'] } });
        const accepted = await call('POST', '/admin/users/invites/accept', undefined, { token });
        const key = accepted.body.api_keys[0].key;
        assert.equal((await call('GET', '/api-keys', key)).status, 200);
        assert.equal((await call('DELETE', `/admin/users/${accepted.body.id}`, gateway.adminKey)).status, 200);
        assert.equal((await call('GET', '/api-keys', key)).status, 401);
        const records = await gateway.gateway.database.db.select().from(auditLogs).where(eq(auditLogs.action, 'organisation_users.delete'));
        assert.ok(records.some((row) => row.resourceId === accepted.body.id));
      });

      test('workspace keys cannot manage users or invites (403)', async () => {
        const key = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'w', scopes: ['organisation_users.list', 'user_invites.create'], workspace_id: 'default' });
        assert.equal((await call('GET', '/admin/users', key.body.key)).status, 403);
        assert.equal((await call('POST', '/admin/users/invites', key.body.key, { email: 'x@y.zz', role: 'member', workspaces: [] })).status, 403);
        const noScope = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'n', scopes: ['completions.write'] });
        const denied = await call('GET', '/admin/users', noScope.body.key);
        assert.equal(denied.status, 403);
        assert.match(denied.body.error.message, /organisation_users\.list/);
      });
    });
  });
}
