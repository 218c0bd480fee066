/** The MCP Integrations group over HTTP, on every back-end: grants and denials, validation, sealing, sync, capabilities, workspaces, audit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLogs } from '../../src/storage/schema.ts';
import { mcpIntegrations } from '../../src/storage/schema/mcp.ts';
import { startFakeMcpServer, type FakeMcpServer } from '../fakes/mcp-server.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const SECRET = 'Bearer mcp-admin-secret-77aa';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `mcp_integrations.${action}`);

for (const backend of testBackends()) {
  describe(`MCP integrations on ${backend.name}`, () => {
    let upstream: FakeMcpServer;
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    const keys = {} as Record<'svcA' | 'svcB' | 'noScope', string>;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    async function refused(method: string, path: string, body: unknown, status: number, param: string | null, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }
    const create = (body: Record<string, unknown> = {}, key?: string) =>
      ok('POST', '/mcp-integrations', { name: 'Tools', url: upstream.url, auth_type: 'headers', transport: 'http', configurations: { custom_headers: { Authorization: SECRET } }, ...body }, key);

    before(async () => {
      upstream = await startFakeMcpServer();
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      const B = await ok('POST', '/admin/workspaces', { name: 'B', slug: 'team-b' });
      keys.svcA = (await ok('POST', '/api-keys/workspace/service', { name: 'a', workspace_id: A, scopes: SCOPES })).key;
      keys.svcB = (await ok('POST', '/api-keys/workspace/service', { name: 'b', workspace_id: B.id, scopes: SCOPES })).key;
      keys.noScope = (await ok('POST', '/api-keys/workspace/service', { name: 'n', workspace_id: A, scopes: ['mcp_integrations.read'] })).key;
    });

    after(async () => {
      await gateway?.close();
      await upstream?.close();
      await drop();
    });

    test('an admin key creates an organisation integration; it is synced, sealed, masked and audited', async () => {
      const created = await create({ slug: 'tools-one', description: 'd' });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug']);
      assert.equal(created.slug, 'tools-one');
      const details = await ok('GET', '/mcp-integrations/tools-one');
      assert.equal(details.type, 'organisation');
      assert.equal(details.auth_type, 'headers');
      assert.deepEqual(details.configurations, { custom_headers: { Authorization: '********' } });
      const [row] = await gateway.gateway.database.db.select().from(mcpIntegrations).where(eq(mcpIntegrations.id, created.id));
      assert.ok(!JSON.stringify(row!.configurations).includes('mcp-admin-secret'), 'the header is sealed at rest');
      const metadata = await ok('GET', `/mcp-integrations/${created.id}/metadata`);
      assert.equal(metadata.server_name, 'fake-mcp');
      assert.equal(metadata.sync_status, 'synced');
      assert.ok(upstream.requests.some((request) => request.headers.authorization === SECRET));
      const audit = await gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, 'mcp_integrations.create'), eq(auditLogs.resourceId, created.id)));
      assert.equal(audit.length, 1);
      assert.ok(!String(audit[0]!.requestBody).includes('mcp-admin-secret'));
      const list = await ok('GET', '/mcp-integrations?type=organisation&search=tools-one');
      assert.equal(list.total, 1);
      assert.equal(list.data[0].configurations.custom_headers.Authorization, '********');
    });

    test('bad input is a 400 naming the field; the SSRF rules apply to the URL', async () => {
      const base = { name: 'x', url: upstream.url, auth_type: 'none', transport: 'http' };
      await refused('POST', '/mcp-integrations', { ...base, url: undefined }, 400, 'url');
      await refused('POST', '/mcp-integrations', { ...base, auth_type: 'oauth_auto' }, 400, 'auth_type');
      await refused('POST', '/mcp-integrations', { ...base, transport: 'sse' }, 400, 'transport');
      const blocked = await refused('POST', '/mcp-integrations', { ...base, url: 'http://10.1.2.3/mcp' }, 400, 'url');
      assert.equal(blocked.code, 'custom_host_blocked');
      await refused('POST', '/mcp-integrations', { ...base, url: 'http://169.254.169.254/latest' }, 400, 'url');
      await refused('POST', '/mcp-integrations', { ...base, configurations: { custom_headers: { A: 'b' } } }, 400, 'configurations.custom_headers');
      await refused('POST', '/mcp-integrations', { ...base, auth_type: 'headers', configurations: { custom_headers: { Host: 'x' } } }, 400, 'configurations.custom_headers.Host');
      await refused('POST', '/mcp-integrations', { ...base, auth_type: 'headers', configurations: { custom_headers: { A: '********' } } }, 400, 'configurations.custom_headers.A');
      await refused('POST', '/mcp-integrations', { ...base, configurations: { passthrough_header: {} } }, 400, 'configurations.passthrough_header');
      await refused('POST', '/mcp-integrations', { ...base, secret_mappings: [{ target_field: 'key', secret_reference_id: 'r' }] }, 400, 'secret_mappings[0].target_field');
      await refused('POST', '/mcp-integrations', { ...base, organisation_id: '00000000-0000-4000-8000-000000000000' }, 400, 'organisation_id');
      await refused('PUT', '/mcp-integrations/tools-one', {}, 400, 'body');
      await create({ slug: 'taken' });
      await refused('POST', '/mcp-integrations', { ...base, slug: 'taken' }, 409, null);
    });

    test('an upstream that cannot be reached leaves a failed sync, and the integration', async () => {
      const created = await create({ url: 'http://127.0.0.1:9/mcp', slug: 'down' });
      const metadata = await ok('GET', `/mcp-integrations/${created.slug}/metadata`);
      assert.equal(metadata.sync_status, 'failed');
      assert.equal(typeof metadata.sync_error, 'string');
      assert.ok(!metadata.sync_error.includes('mcp-admin-secret'));
    });

    test('PUT keeps a masked header, replaces what it names, and syncs again', async () => {
      const before = upstream.requests.length;
      await ok('PUT', '/mcp-integrations/tools-one', { name: 'Renamed', configurations: { custom_headers: { Authorization: '********', 'X-Extra': 'e' } } });
      const details = await ok('GET', '/mcp-integrations/tools-one');
      assert.equal(details.name, 'Renamed');
      assert.deepEqual(details.configurations, { custom_headers: { Authorization: '********', 'X-Extra': '********' } });
      const resynced = upstream.requests.slice(before);
      assert.ok(resynced.length > 0 && resynced.every((request) => request.headers.authorization === SECRET && request.headers['x-extra'] === 'e'));
      await ok('PUT', '/mcp-integrations/tools-one', { description: null });
      assert.equal(upstream.requests.length, before + resynced.length, 'a change of description does not sync');
    });

    test('capabilities: listed with counts, filtered, paged, switched; unknown ones are refused', async () => {
      const all = await ok('GET', '/mcp-integrations/tools-one/capabilities');
      assert.deepEqual(all.counts.tools, { total: 3, enabled: 3 });
      assert.deepEqual(all.counts.prompts, { total: 1, enabled: 1 });
      assert.deepEqual(all.counts.resource_templates, { total: 1, enabled: 1 });
      const tools = await ok('GET', '/mcp-integrations/tools-one/capabilities?type=tool&page=2&page_size=2');
      assert.equal(tools.total, 3);
      assert.equal(tools.data.length, 1);
      assert.equal(tools.has_more, false);
      const add = (await ok('GET', '/mcp-integrations/tools-one/capabilities?type=tool')).data.find((entry: { name: string }) => entry.name === 'add');
      assert.equal(add.input_schema.type, 'object');
      assert.deepEqual(await ok('PUT', '/mcp-integrations/tools-one/capabilities', { capabilities: [{ name: 'add', type: 'tool', enabled: false }] }), { success: true });
      assert.deepEqual((await ok('GET', '/mcp-integrations/tools-one/capabilities')).counts.tools, { total: 3, enabled: 2 });
      await refused('PUT', '/mcp-integrations/tools-one/capabilities', { capabilities: [{ name: 'nope', type: 'tool', enabled: false }] }, 400, 'capabilities[0].name');
      await refused('PUT', '/mcp-integrations/tools-one/capabilities', { capabilities: [] }, 400, 'capabilities');
      await refused('GET', '/mcp-integrations/tools-one/capabilities?page=0', undefined, 400, 'page');
    });

    test('workspaces: who may see and use an organisation integration', async () => {
      await refused('GET', '/mcp-integrations/tools-one', undefined, 404, null, keys.svcA);
      await ok('PUT', '/mcp-integrations/tools-one/workspaces', { workspaces: [{ id: A, enabled: true }] });
      assert.equal((await ok('GET', '/mcp-integrations/tools-one', undefined, keys.svcA)).slug, 'tools-one');
      const legacy = await ok('GET', '/mcp-integrations/tools-one/workspaces');
      assert.deepEqual(legacy.workspaces.map((entry: { id: string; enabled: boolean }) => [entry.id, entry.enabled]), [[A, true]]);
      const versioned = await ok('GET', '/mcp-integrations/tools-one/workspaces?version=2');
      assert.equal(versioned.object, 'list');
      assert.equal(versioned.total, 1);
      await refused('GET', '/mcp-integrations/tools-one/workspaces', undefined, 403, null, keys.svcA);
      await refused('PUT', '/mcp-integrations/tools-one/workspaces', { workspaces: [{ id: 'no-such', enabled: true }] }, 404, 'workspaces[0].id');
      await ok('PUT', '/mcp-integrations/tools-one/workspaces', { workspaces: [], global_workspace_access: { enabled: true } });
      assert.equal((await ok('GET', '/mcp-integrations/tools-one', undefined, keys.svcB)).slug, 'tools-one');
      await ok('PUT', '/mcp-integrations/tools-one/workspaces', { workspaces: [], global_workspace_access: null, override_existing_workspace_access: true });
      await refused('GET', '/mcp-integrations/tools-one', undefined, 404, null, keys.svcA);
    });

    test('denials: scopes, workspace keys on organisation integrations, other workspaces', async () => {
      const denied = await refused('POST', '/mcp-integrations', { name: 'x', url: upstream.url, auth_type: 'none', transport: 'http' }, 403, null, keys.noScope);
      assert.equal(denied.code, 'missing_scope');
      const denials = await gateway.gateway.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, 'mcp_integrations.create'), eq(auditLogs.outcome, 'denied')));
      assert.ok(denials.length >= 1);
      const own = await create({ slug: 'ws-a-tools', auth_type: 'none', configurations: {} }, keys.svcA);
      const details = await ok('GET', `/mcp-integrations/${own.id}`, undefined, keys.svcA);
      assert.equal(details.type, 'workspace');
      assert.equal(details.workspace_id, A);
      await refused('GET', `/mcp-integrations/${own.id}`, undefined, 404, null, keys.svcB);
      await refused('DELETE', `/mcp-integrations/${own.id}`, undefined, 404, null, keys.svcB);
      await refused('PUT', `/mcp-integrations/${own.id}/workspaces`, { workspaces: [] }, 400, 'workspaces', keys.svcA);
      await ok('PUT', '/mcp-integrations/tools-one/workspaces', { workspaces: [{ id: A, enabled: true }] });
      const error = await refused('PUT', '/mcp-integrations/tools-one', { name: 'mine' }, 403, null, keys.svcA);
      assert.equal(error.code, 'admin_key_required');
      const listed = await ok('GET', '/mcp-integrations', undefined, keys.svcB);
      assert.ok(listed.data.every((entry: { slug: string }) => entry.slug !== 'ws-a-tools'));
    });

    test('DELETE removes the integration and the servers on it', async () => {
      const created = await create({ slug: 'to-delete' });
      await ok('PUT', '/mcp-integrations/to-delete/workspaces', { workspaces: [{ id: A, enabled: true }] });
      const server = await ok('POST', '/mcp-servers', { name: 's', mcp_integration_id: 'to-delete', workspace_id: A });
      assert.deepEqual(await ok('DELETE', `/mcp-integrations/${created.id}`), {});
      assert.equal((await admin('GET', `/mcp-integrations/${created.id}`)).status, 404);
      assert.equal((await admin('GET', `/mcp-servers/${server.id}`)).status, 404);
      assert.equal((await admin('GET', '/mcp-integrations/to-delete/metadata')).status, 404);
    });
  });
}
