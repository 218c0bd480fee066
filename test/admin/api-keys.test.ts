/** The API keys group over HTTP: create, list, retrieve, update, rotate, delete; grants and denials; audit records. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { request } from 'undici';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { auditLogs, users, workspaceMembers } from '../../src/storage/schema.ts';
import { insertWorkspace } from '../../src/storage/repositories/organisations.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { closeAll, startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const WORKSPACE_SCOPES = ALL_SCOPES.filter((scope) => scope.startsWith('workspace_') || scope === 'completions.write');

for (const backend of testBackends()) {
  describe(`api keys [${backend.name}]`, () => {
    let gateway: TestGateway;
    let upstream: FakeUpstream;
    let call: ReturnType<typeof adminClient>;
    let otherWorkspaceId: string;

    before(async () => {
      upstream = await startFakeUpstream();
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      const other = await insertWorkspace(gateway.gateway.database.db, {
        organisationId: gateway.gateway.bootstrap.organisation.id,
        name: 'Other',
        slug: 'other',
      });
      otherWorkspaceId = other.id;
    });

    after(() => closeAll(() => gateway?.close(), () => upstream?.close()));

    async function chat(key: string): Promise<number> {
      const response = await request(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': upstream.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.body.text();
      return response.statusCode;
    }

    async function audits(action: string) {
      return gateway.gateway.database.db.select().from(auditLogs).where(eq(auditLogs.action, action));
    }

    describe('admin keys', () => {
      test('the owner creates an admin key; the secret is shown once, then only masked; it works at once', async () => {
        const created = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'ops', scopes: ['completions.write', 'organisation_service_api_keys.read'] });
        assert.equal(created.status, 200);
        assert.equal(created.body.object, 'api-key');
        assert.match(created.body.key, /^gw_[A-Za-z0-9_-]{43}$/);
        const fetched = await call('GET', `/api-keys/${created.body.id}`, gateway.adminKey);
        assert.equal(fetched.status, 200);
        assert.equal(fetched.body.type, 'organisation-service');
        assert.ok(!JSON.stringify(fetched.body).includes(created.body.key), 'the secret is never shown again');
        assert.match(fetched.body.key, /\*{7}/);
        assert.equal(await chat(created.body.key), 200);
        const records = await audits('api_keys.create');
        const record = records.find((row) => row.resourceId === created.body.id);
        assert.ok(record, 'an audit record was written');
        assert.equal(record.outcome, 'success');
        assert.equal(record.responseStatusCode, 200);
        assert.ok(!String(record.requestHeaders).includes(gateway.adminKey), 'the caller key is masked in the audit record');
      });

      test('bad bodies are 400s naming the field; unknown scopes too', async () => {
        const cases: Array<[unknown, string]> = [
          [{ scopes: [] }, 'name'],
          [{ name: 'x' }, 'scopes'],
          [{ name: '', scopes: [] }, 'name'],
          [{ name: 'x', scopes: ['nope.read'] }, 'scopes[0]'],
          [{ name: 'x', scopes: [], expires_at: 'tomorrow' }, 'expires_at'],
          [{ name: 'x', scopes: [], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
          [{ name: 'x', scopes: [], rate_limits: [{ type: 'requests', unit: 'rpx', value: 1 }] }, 'rate_limits[0].unit'],
          [{ name: 'x', scopes: [], surprise: 1 }, 'surprise'],
        ];
        for (const [body, param] of cases) {
          const response = await call('POST', '/api-keys/organisation/service', gateway.adminKey, body);
          assert.equal(response.status, 400, JSON.stringify(body));
          assert.equal(response.body.error.param, param, JSON.stringify(response.body));
        }
        const kind = await call('POST', '/api-keys/organisation/user', gateway.adminKey, { name: 'x', scopes: [] });
        assert.equal(kind.status, 400);
      });

      test('a key cannot grant scopes it does not hold, nor create keys without the create scope', async () => {
        const limited = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'limited', scopes: ['organisation_service_api_keys.create'] });
        const escalate = await call('POST', '/api-keys/organisation/service', limited.body.key, { name: 'x', scopes: ['workspaces.delete'] });
        assert.equal(escalate.status, 403);
        assert.equal(escalate.body.error.code, 'scope_escalation');
        const noScope = await call('POST', '/api-keys/workspace/service', limited.body.key, { name: 'x', scopes: [], workspace_id: 'default' });
        assert.equal(noScope.status, 403);
        assert.match(noScope.body.error.message, /workspace_service_api_keys\.create/);
        const denied = (await audits('api_keys.create')).filter((row) => row.outcome === 'denied');
        assert.ok(denied.length >= 2, 'denied attempts are audited');
      });
    });

    describe('workspace keys', () => {
      let workspaceKey: { id: string; key: string };

      test('an admin creates a workspace key by workspace slug; it serves inference in its workspace', async () => {
        const created = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'svc', scopes: WORKSPACE_SCOPES, workspace_id: 'default' });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        workspaceKey = created.body;
        assert.equal(await chat(workspaceKey.key), 200);
      });

      test('a workspace key creates keys for its own workspace only, and never an admin key', async () => {
        const own = await call('POST', '/api-keys/workspace/service', workspaceKey.key, { name: 'child', scopes: ['completions.write'], workspace_id: gateway.gateway.bootstrap.workspace.id });
        assert.equal(own.status, 200, JSON.stringify(own.body));
        const other = await call('POST', '/api-keys/workspace/service', workspaceKey.key, { name: 'child', scopes: ['completions.write'], workspace_id: otherWorkspaceId });
        assert.equal(other.status, 404, 'another workspace does not exist for a workspace key');
        const admin = await call('POST', '/api-keys/organisation/service', workspaceKey.key, { name: 'x', scopes: [] });
        assert.equal(admin.status, 403);
      });

      test('a workspace key lists and reads only its own workspace keys', async () => {
        const foreign = await call('POST', '/api-keys/workspace/service', gateway.adminKey, { name: 'foreign', scopes: ['completions.write'], workspace_id: 'other' });
        assert.equal(foreign.status, 200);
        const list = await call('GET', '/api-keys', workspaceKey.key);
        assert.equal(list.status, 200);
        assert.equal(list.body.object, 'list');
        assert.ok(list.body.data.every((key: { workspace_id: string }) => key.workspace_id === gateway.gateway.bootstrap.workspace.id));
        assert.equal((await call('GET', `/api-keys/${foreign.body.id}`, workspaceKey.key)).status, 404);
        assert.equal((await call('GET', `/api-keys?workspace_id=other`, workspaceKey.key)).status, 404);
        const all = await call('GET', '/api-keys?page_size=100', gateway.adminKey);
        assert.ok(all.body.data.some((key: { id: string }) => key.id === foreign.body.id));
        assert.equal(all.body.total, all.body.data.length);
        const paged = await call('GET', '/api-keys?page_size=1&current_page=1', gateway.adminKey);
        assert.equal(paged.body.data.length, 1);
        assert.equal(paged.body.total, all.body.total);
        assert.equal((await call('GET', '/api-keys?page_size=0', gateway.adminKey)).status, 400);
      });

      test('a user key acts with its user\'s workspace role: a member creates no keys, a manager does', async () => {
        const db = gateway.gateway.database.db;
        const organisationId = gateway.gateway.bootstrap.organisation.id;
        const workspaceId = gateway.gateway.bootstrap.workspace.id;
        const [member] = await db.insert(users).values({ organisationId, email: 'm@example.com', role: 'member' }).returning();
        const [manager] = await db.insert(users).values({ organisationId, email: 'g@example.com', role: 'member' }).returning();
        await db.insert(workspaceMembers).values([
          { workspaceId, userId: member!.id, role: 'member' },
          { workspaceId, userId: manager!.id, role: 'manager' },
        ]);
        const memberKey = await call('POST', '/api-keys/workspace/user', gateway.adminKey, { name: 'm', scopes: WORKSPACE_SCOPES, workspace_id: workspaceId, user_id: member!.id });
        const managerKey = await call('POST', '/api-keys/workspace/user', gateway.adminKey, { name: 'g', scopes: WORKSPACE_SCOPES, workspace_id: workspaceId, user_id: manager!.id });
        assert.equal(memberKey.status, 200);
        const byMember = await call('POST', '/api-keys/workspace/service', memberKey.body.key, { name: 'x', scopes: ['completions.write'], workspace_id: workspaceId });
        assert.equal(byMember.status, 403);
        const byManager = await call('POST', '/api-keys/workspace/service', managerKey.body.key, { name: 'x', scopes: ['completions.write'], workspace_id: workspaceId });
        assert.equal(byManager.status, 200);
        const notMember = await call('POST', '/api-keys/workspace/user', gateway.adminKey, { name: 'x', scopes: [], workspace_id: otherWorkspaceId, user_id: member!.id });
        assert.equal(notMember.status, 400);
        assert.equal(notMember.body.error.param, 'user_id');
      });
    });

    describe('update, rotate, delete', () => {
      test('update changes name and scopes; the cached key sees the new scopes at once', async () => {
        const created = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'u', scopes: ['completions.write', 'organisation_service_api_keys.list'] });
        assert.equal((await call('GET', '/api-keys', created.body.key)).status, 200);
        const updated = await call('PUT', `/api-keys/${created.body.id}`, gateway.adminKey, { name: 'renamed', scopes: ['completions.write'] });
        assert.equal(updated.status, 200);
        assert.deepEqual(updated.body, {});
        assert.equal((await call('GET', '/api-keys', created.body.key)).status, 403, 'the removed scope no longer works');
        const fetched = await call('GET', `/api-keys/${created.body.id}`, gateway.adminKey);
        assert.equal(fetched.body.name, 'renamed');
        assert.equal((await call('PUT', `/api-keys/${created.body.id}`, gateway.adminKey, { name: 5 })).status, 400);
        assert.equal((await call('PUT', '/api-keys/not-a-uuid', gateway.adminKey, { name: 'x' })).status, 400);
        assert.equal((await call('PUT', '/api-keys/00000000-0000-4000-8000-000000000000', gateway.adminKey, { name: 'x' })).status, 404);
      });

      test('rotate: the new secret works, the old one keeps working during the transition', async () => {
        const created = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'r', scopes: ['completions.write'] });
        assert.equal(await chat(created.body.key), 200);
        const rotated = await call('POST', `/api-keys/${created.body.id}/rotate`, gateway.adminKey, { key_transition_period_ms: 1_800_000 });
        assert.equal(rotated.status, 200);
        assert.notEqual(rotated.body.key, created.body.key);
        assert.ok(Date.parse(rotated.body.key_transition_expires_at) > Date.now() + 1_700_000);
        assert.equal(await chat(rotated.body.key), 200);
        assert.equal(await chat(created.body.key), 200);
        assert.equal((await call('POST', `/api-keys/${created.body.id}/rotate`, gateway.adminKey, { key_transition_period_ms: 1000 })).status, 400);
      });

      test('delete: the key stops working on the next request; a key cannot delete itself', async () => {
        const created = await call('POST', '/api-keys/organisation/service', gateway.adminKey, { name: 'd', scopes: ['completions.write', 'organisation_service_api_keys.delete'] });
        assert.equal(await chat(created.body.key), 200);
        const self = await call('DELETE', `/api-keys/${created.body.id}`, created.body.key);
        assert.equal(self.status, 400);
        const deleted = await call('DELETE', `/api-keys/${created.body.id}`, gateway.adminKey);
        assert.equal(deleted.status, 200);
        assert.equal(await chat(created.body.key), 401);
        assert.equal((await call('GET', `/api-keys/${created.body.id}`, gateway.adminKey)).status, 404);
        const records = await audits('api_keys.delete');
        assert.ok(records.some((row) => row.resourceId === created.body.id && row.outcome === 'success'));
      });
    });
  });
}
