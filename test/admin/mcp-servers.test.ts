/** The MCP Servers group over HTTP, on every back-end: grants and denials, validation, test, capabilities, user access, connections. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLogs, users } from '../../src/storage/schema.ts';
import { startFakeMcpServer, type FakeMcpServer } from '../fakes/mcp-server.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `mcp_servers.${action}`);
const MISSING = '00000000-0000-4000-8000-000000000000';

for (const backend of testBackends()) {
  describe(`MCP servers on ${backend.name}`, () => {
    let upstream: FakeMcpServer;
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: string;
    let userId: string;
    const keys = {} as Record<'svcA' | 'svcB' | 'memberA' | 'readOnly', string>;

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    async function refused(method: string, path: string, body: unknown, status: number, param: string | null, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }

    before(async () => {
      upstream = await startFakeMcpServer();
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = (await ok('POST', '/admin/workspaces', { name: 'B', slug: 'team-b' })).id;
      keys.svcA = (await ok('POST', '/api-keys/workspace/service', { name: 'a', workspace_id: A, scopes: SCOPES })).key;
      keys.svcB = (await ok('POST', '/api-keys/workspace/service', { name: 'b', workspace_id: B, scopes: SCOPES })).key;
      keys.readOnly = (await ok('POST', '/api-keys/workspace/service', { name: 'r', workspace_id: A, scopes: ['mcp_servers.read'] })).key;
      const [user] = await gateway.gateway.database.db.insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email: 'm@example.com', firstName: 'Mia', role: 'member' }).returning();
      userId = user!.id;
      await ok('POST', `/admin/workspaces/${A}/users`, { users: [{ id: userId, role: 'member' }] });
      keys.memberA = (await ok('POST', '/api-keys/workspace/user', { name: 'm', workspace_id: A, user_id: userId, scopes: SCOPES })).key;
      await ok('POST', '/mcp-integrations', { name: 'Tools', slug: 'tools', url: upstream.url, auth_type: 'headers', transport: 'http', configurations: { custom_headers: { 'X-Api-Key': 'k-secret-123' } } });
      await ok('PUT', '/mcp-integrations/tools/workspaces', { workspaces: [{ id: A, enabled: true }] });
    });

    after(async () => {
      await gateway?.close();
      await upstream?.close();
      await drop();
    });

    test('create, read, list, update and delete; audited', async () => {
      const created = await ok('POST', '/mcp-servers', { name: 'Tools A', mcp_integration_id: 'tools', slug: 'tools-a', description: 'x' }, keys.svcA);
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug']);
      const details = await ok('GET', '/mcp-servers/tools-a', undefined, keys.svcA);
      assert.equal(details.workspace_id, A);
      assert.equal(details.mcp_integration_details.slug, 'tools');
      assert.deepEqual(details.mcp_integration_details.configurations, { custom_headers: { 'X-Api-Key': '********' } });
      await ok('PUT', `/mcp-servers/${created.id}`, { name: 'Renamed' }, keys.svcA);
      const list = await ok('GET', `/mcp-servers?id=${created.id}`);
      assert.equal(list.total, 1);
      assert.equal(list.data[0].name, 'Renamed');
      assert.equal(list.data[0].mcp_integration_slug, 'tools');
      assert.equal(list.data[0].workspace_id, A);
      assert.equal((await ok('GET', '/mcp-servers?search=renam')).total, 1);
      const generated = await ok('POST', '/mcp-servers', { name: 'Second one', mcp_integration_id: 'tools', workspace_id: A });
      assert.match(generated.slug, /^mcp-second-one-[0-9a-f]{6}$/);
      assert.deepEqual(await ok('DELETE', `/mcp-servers/${generated.id}`), {});
      await refused('GET', `/mcp-servers/${generated.id}`, undefined, 404, null);
      const audit = await gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, 'mcp_servers.update'), eq(auditLogs.resourceId, created.id)));
      assert.equal(audit.length, 1);
    });

    test('bad input and conflicts name the field', async () => {
      await refused('POST', '/mcp-servers', { name: 'x' }, 400, 'mcp_integration_id');
      await refused('POST', '/mcp-servers', { name: 'x', mcp_integration_id: 'tools', slug: 'ab' }, 400, 'slug');
      await refused('POST', '/mcp-servers', { name: '', mcp_integration_id: 'tools' }, 400, 'name');
      await refused('POST', '/mcp-servers', { name: 'x', mcp_integration_id: 'tools', slug: 'tools-a' }, 409, null);
      await refused('POST', '/mcp-servers', { name: 'x', mcp_integration_id: 'no-such' }, 404, null);
      const off = await refused('POST', '/mcp-servers', { name: 'x', mcp_integration_id: 'tools', workspace_id: B }, 400, 'mcp_integration_id');
      assert.equal(off.code, 'mcp_integration_not_enabled');
      await refused('PUT', '/mcp-servers/tools-a', {}, 400, 'body');
      await refused('GET', '/mcp-servers?id=not-a-uuid', undefined, 400, 'id');
      await refused('GET', `/mcp-servers/${MISSING}`, undefined, 404, null);
    });

    test('test connects to the upstream and answers how it went', async () => {
      const answer = await ok('POST', '/mcp-servers/tools-a/test', undefined, keys.readOnly);
      assert.equal(answer.success, true);
      assert.equal(answer.server_name, 'fake-mcp');
      assert.equal(answer.url, upstream.url);
      assert.equal(typeof answer.response_time_ms, 'number');
      assert.equal(answer.error, null);
      assert.equal(upstream.requests.at(-1)!.headers['x-api-key'], 'k-secret-123');
    });

    test('capabilities: the integration\'s flag and the server\'s switch', async () => {
      await ok('PUT', '/mcp-integrations/tools/capabilities', { capabilities: [{ name: 'greeting', type: 'prompt', enabled: false }] });
      await ok('PUT', '/mcp-servers/tools-a/capabilities', { capabilities: [{ name: 'add', type: 'tool', enabled: false }] }, keys.svcA);
      const listed = await ok('GET', '/mcp-servers/tools-a/capabilities', undefined, keys.readOnly);
      const find = (name: string) => listed.data.find((entry: { name: string }) => entry.name === name);
      assert.deepEqual([find('add').enabled, find('add').integration_enabled], [false, true]);
      assert.deepEqual([find('greeting').enabled, find('greeting').integration_enabled], [true, false]);
      assert.deepEqual(listed.counts.tools, { total: 3, enabled: 2 });
      assert.deepEqual(listed.counts.prompts, { total: 1, enabled: 0 });
      await refused('PUT', '/mcp-servers/tools-a/capabilities', { capabilities: [{ name: 'add', type: 'prompt', enabled: false }] }, 400, 'capabilities[0].name', keys.svcA);
      await refused('PUT', '/mcp-servers/tools-a/capabilities', { capabilities: [{ name: 'add', type: 'tool', enabled: true }] }, 403, null, keys.readOnly);
    });

    test('user access: members with their entry or the default', async () => {
      const before = await ok('GET', '/mcp-servers/tools-a/user-access', undefined, keys.readOnly);
      assert.equal(before.default_user_access, 'allow');
      assert.deepEqual(before.data, [{ user_id: userId, first_name: 'Mia', last_name: null, enabled: true, has_override: false, connection_status: 'not_connected' }]);
      assert.deepEqual(await ok('PUT', '/mcp-servers/tools-a/user-access', { user_access: [{ user_id: userId, enabled: false }], default_user_access: 'deny' }, keys.svcA), { success: true });
      const after = await ok('GET', '/mcp-servers/tools-a/user-access?search=m%40example', undefined, keys.readOnly);
      assert.equal(after.default_user_access, 'deny');
      assert.deepEqual([after.data[0].enabled, after.data[0].has_override], [false, true]);
      await refused('PUT', '/mcp-servers/tools-a/user-access', { user_access: [{ user_id: MISSING, enabled: true }] }, 404, 'user_access[0].user_id', keys.svcA);
      await refused('PUT', '/mcp-servers/tools-a/user-access', { default_user_access: 'maybe' }, 400, 'default_user_access', keys.svcA);
      const member = await refused('PUT', '/mcp-servers/tools-a/user-access', { default_user_access: 'allow' }, 403, null, keys.memberA);
      assert.equal(member.code, 'workspace_manager_required');
      await refused('GET', '/mcp-servers/tools-a/user-access?page=0', undefined, 400, 'page');
    });

    test('connections: none are held; a delete checks whose', async () => {
      const listed = await ok('GET', `/mcp-servers/tools-a/connections?user_id=${userId}`, undefined, keys.readOnly);
      assert.deepEqual([listed.total, listed.data], [0, []]);
      await refused('DELETE', '/mcp-servers/tools-a/connections', undefined, 400, 'user_id', keys.svcA);
      assert.deepEqual(await ok('DELETE', `/mcp-servers/tools-a/connections?user_id=${userId}`, undefined, keys.svcA), { success: true });
      assert.deepEqual(await ok('DELETE', '/mcp-servers/tools-a/connections', undefined, keys.memberA), { success: true });
      await refused('GET', '/mcp-servers/tools-a/connections?user_id=x', undefined, 400, 'user_id');
    });

    test('denials: another workspace sees nothing, scopes are checked, members change nothing', async () => {
      for (const path of ['/mcp-servers/tools-a', '/mcp-servers/tools-a/capabilities', '/mcp-servers/tools-a/user-access', '/mcp-servers/tools-a/connections']) {
        await refused('GET', path, undefined, 404, null, keys.svcB);
      }
      await refused('POST', '/mcp-servers/tools-a/test', undefined, 404, null, keys.svcB);
      await refused('DELETE', '/mcp-servers/tools-a', undefined, 404, null, keys.svcB);
      assert.equal((await ok('GET', '/mcp-servers', undefined, keys.svcB)).total, 0);
      assert.equal((await ok('GET', '/mcp-servers', undefined, keys.svcA)).total, 1);
      const scope = await refused('POST', '/mcp-servers', { name: 'x', mcp_integration_id: 'tools' }, 403, null, keys.readOnly);
      assert.equal(scope.code, 'missing_scope');
      await refused('GET', '/mcp-servers', undefined, 403, null, keys.readOnly);
      await refused('PUT', '/mcp-servers/tools-a', { name: 'no' }, 403, null, keys.memberA);
      await refused('DELETE', '/mcp-servers/tools-a', undefined, 403, null, keys.memberA);
      await refused('POST', '/mcp-servers', { name: 'x', mcp_integration_id: 'tools' }, 403, null, keys.memberA);
    });
  });
}
