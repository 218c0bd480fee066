/**
 * The MCP gateway end to end: a real MCP server (the official SDK's) on 127.0.0.1 behind an MCP integration, an
 * MCP server in a workspace with one tool switched off, and the SDK's own client talking to the gateway endpoint
 * with a gateway key as its bearer token. Proves: tools listed and called through the gateway, the allow-list
 * enforced, the stored header injected upstream and never returned, logged or audited, each call logged, and every
 * refusal (no key, no scope, another workspace, user access, workspace access).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { eq, sql } from 'drizzle-orm';
import { auditLogs, requestLogs, users } from '../../src/storage/schema.ts';
import { fingerprint, startFakeMcpServer, type FakeMcpServer } from '../fakes/mcp-server.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const SECRET = 'Bearer upstream-secret-4f2a9c1e';

for (const backend of testBackends()) {
  describe(`the MCP gateway on ${backend.name}`, () => {
    let upstream: FakeMcpServer;
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    const seen: string[] = [];
    const keys = {} as Record<'user' | 'other' | 'noScope', string>;
    let serverKey: string;
    let serverId: string;
    let integrationSlug: string;

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      seen.push(JSON.stringify(response.body));
      return response.body;
    }

    /** The SDK client on the gateway endpoint; every answer's text is kept to search for the secret. */
    async function connect(key: string, server = 'fake-tools'): Promise<Client> {
      const recordingFetch = async (url: string | URL, init?: RequestInit) => {
        const response = await fetch(url, init);
        seen.push(await response.clone().text());
        return response;
      };
      const transport = new StreamableHTTPClientTransport(new URL(`${gateway.baseURL}/mcp/${server}`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
        fetch: recordingFetch,
      });
      const client = new Client({ name: 'test-client', version: '1.0.0' });
      await client.connect(transport);
      return client;
    }

    const text = (result: unknown) => ((result as { content: Array<{ text: string }> }).content)[0]!.text;
    const contentText = (result: { contents: unknown[] }) => (result.contents[0] as { text: string }).text;

    before(async () => {
      upstream = await startFakeMcpServer();
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      const workspace = gateway.gateway.bootstrap.workspace.id;
      const integration = await ok('POST', '/mcp-integrations', {
        name: 'Fake tools',
        url: upstream.url,
        auth_type: 'headers',
        transport: 'http',
        configurations: { custom_headers: { Authorization: SECRET } },
      });
      integrationSlug = integration.slug;
      await ok('PUT', `/mcp-integrations/${integration.id}/workspaces`, { workspaces: [{ id: workspace, enabled: true }] });
      const server = await ok('POST', '/mcp-servers', { name: 'Fake tools', mcp_integration_id: integration.slug, slug: 'fake-tools', workspace_id: workspace });
      serverId = server.id;
      await ok('PUT', `/mcp-servers/${server.id}/capabilities`, { capabilities: [{ name: 'delete_everything', type: 'tool', enabled: false }] });
      serverKey = (await ok('POST', '/api-keys/workspace/service', { name: 'agent', workspace_id: workspace, scopes: ['mcp_servers.read'] })).key;
      keys.noScope = (await ok('POST', '/api-keys/workspace/service', { name: 'no-mcp', workspace_id: workspace, scopes: ['completions.write'] })).key;
      const other = await ok('POST', '/admin/workspaces', { name: 'Other', slug: 'other' });
      keys.other = (await ok('POST', '/api-keys/workspace/service', { name: 'other', workspace_id: other.id, scopes: ['mcp_servers.read'] })).key;
      const [user] = await gateway.gateway.database.db.insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email: 'dev@example.com', role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspace}/users`, { users: [{ id: user!.id, role: 'member' }] });
      keys.user = (await ok('POST', '/api-keys/workspace/user', { name: 'dev', workspace_id: workspace, user_id: user!.id, scopes: ['mcp_servers.read'] })).key;
      await ok('PUT', `/mcp-servers/${server.id}/user-access`, { user_access: [{ user_id: user!.id, enabled: false }] });
    });

    after(async () => {
      await gateway?.close();
      await upstream?.close();
      await drop();
    });

    test('the integration was synced from the upstream on create: metadata and capabilities', async () => {
      const metadata = await ok('GET', `/mcp-integrations/${integrationSlug}/metadata`);
      assert.equal(metadata.server_name, 'fake-mcp');
      assert.equal(metadata.server_version, '1.2.3');
      assert.equal(metadata.sync_status, 'synced');
      assert.match(metadata.protocol_version, /^\d{4}-\d{2}-\d{2}$/);
      const capabilities = await ok('GET', `/mcp-servers/${serverId}/capabilities?type=tool`);
      const byName = Object.fromEntries(capabilities.data.map((entry: { name: string; enabled: boolean }) => [entry.name, entry.enabled]));
      assert.deepEqual(byName, { add: true, delete_everything: false, whoami: true });
      assert.deepEqual(capabilities.counts.tools, { total: 3, enabled: 2 });
    });

    test('an SDK client lists and calls tools through the gateway; the allow-list holds', async () => {
      const client = await connect(serverKey);
      assert.equal(client.getServerVersion()?.name, 'fake-mcp');
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['add', 'whoami']);
      assert.equal(text(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })), '5');
      await assert.rejects(client.callTool({ name: 'delete_everything', arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        assert.match(error.message, /not enabled on this MCP server/);
        return true;
      });
      assert.ok(!upstream.requests.some((request) => request.rpc.includes('tools/call') && JSON.stringify(request).includes('delete_everything')));
      const prompt = await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } });
      assert.match(JSON.stringify(prompt.messages), /Hello, Ada!/);
      assert.equal(contentText(await client.readResource({ uri: 'memo://readme' })), 'read me');
      assert.equal(contentText(await client.readResource({ uri: 'memo://notes/x' })), 'note x');
      await client.close();
    });

    test('the stored header reaches the upstream and never the client, the log or the audit', async () => {
      const client = await connect(serverKey);
      const answer = text(await client.callTool({ name: 'whoami', arguments: {} }));
      assert.equal(answer, `sha256:${fingerprint(SECRET)}`);
      await client.close();
      const posts = upstream.requests.filter((request) => request.method === 'POST');
      assert.ok(posts.length > 0 && posts.every((request) => request.headers.authorization === SECRET));
      assert.ok(upstream.requests.every((request) => request.headers['x-gateway-api-key'] === undefined && !JSON.stringify(request.headers).includes(serverKey)));
      const details = await ok('GET', `/mcp-integrations/${integrationSlug}`);
      assert.deepEqual(details.configurations, { custom_headers: { Authorization: '********' } });
      const secretPart = SECRET.slice(7);
      assert.ok(seen.every((body) => !body.includes(secretPart)), 'an answer carried the stored secret');
      await gateway.gateway.requestLog.flush();
      const db = gateway.gateway.database.db;
      const logged = await db.execute(sql`select count(*)::int as n from request_logs where request_body like ${`%${secretPart}%`} or response_body like ${`%${secretPart}%`} or request_headers::text like ${`%${secretPart}%`}`);
      assert.equal(Number((logged as unknown as { rows: Array<{ n: number }> }).rows[0]!.n), 0);
      const audited = await db.select().from(auditLogs).where(eq(auditLogs.resourceType, 'mcp_integration'));
      assert.ok(audited.length > 0 && audited.every((row) => !String(row.requestBody).includes(secretPart)));
    });

    test('each call is one request-log row: method, tool, status, server', async () => {
      const client = await connect(serverKey);
      await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      await client.callTool({ name: 'delete_everything', arguments: {} }).catch(() => {});
      await client.close();
      await gateway.gateway.requestLog.flush();
      const rows = await gateway.gateway.database.db.select().from(requestLogs).where(eq(requestLogs.route, 'mcp'));
      const calls = rows.filter((row) => row.metadata.mcp_method === 'tools/call');
      const added = calls.find((row) => row.model === 'add');
      assert.ok(added, 'a row for the add call');
      assert.equal(added.status, 200);
      assert.equal(added.isSuccess, true);
      assert.equal(added.mode, 'mcp');
      assert.equal(added.providerSlug, 'fake-tools');
      assert.equal(added.metadata.mcp_server_id, serverId);
      assert.equal(added.path, `/v1/mcp/${serverId}`);
      const refused = calls.find((row) => row.model === 'delete_everything');
      assert.equal(refused?.status, 403);
      assert.equal(refused?.isSuccess, false);
      assert.ok(rows.some((row) => row.metadata.mcp_method === 'initialize'));
      assert.ok(rows.every((row) => row.requestHeaders?.authorization === undefined || row.requestHeaders.authorization === '********'));
    });

    test('refusals: no key, no scope, another workspace, a denied user, a workspace the integration is off for', async () => {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
      const post = (key: string | undefined, server = 'fake-tools') =>
        fetch(`${gateway.baseURL}/mcp/${server}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify(initialize),
        });
      const expect = async (response: Response, status: number, code: string) => {
        const body = (await response.json()) as { error: { code: string } };
        assert.equal(response.status, status, JSON.stringify(body));
        assert.equal(body.error.code, code);
      };
      await expect(await post(undefined), 401, 'missing_api_key');
      await expect(await post(keys.noScope), 403, 'missing_scope');
      await expect(await post(keys.other), 404, 'mcp_server_not_found');
      await expect(await post(keys.user), 403, 'mcp_user_access_denied');
      await expect(await post(serverKey, 'no-such-server'), 404, 'mcp_server_not_found');
      const get = await fetch(`${gateway.baseURL}/mcp/fake-tools`, { headers: { authorization: `Bearer ${serverKey}` } });
      assert.equal(get.status, 405);
      await get.body?.cancel();
      await ok('PUT', `/mcp-integrations/${integrationSlug}/workspaces`, { workspaces: [{ id: gateway.gateway.bootstrap.workspace.id, enabled: false }] });
      await expect(await post(serverKey), 403, 'mcp_integration_not_enabled');
      await ok('PUT', `/mcp-integrations/${integrationSlug}/workspaces`, { workspaces: [{ id: gateway.gateway.bootstrap.workspace.id, enabled: true }] });
      assert.equal((await post(serverKey)).status, 200);
    });
  });
}
