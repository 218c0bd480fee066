/**
 * The legacy Virtual keys group over HTTP, on every back-end: a virtual key is a provider with a workspace
 * integration of its own that holds the key, sealed (no table holds it in clear, no answer or audit record shows it);
 * the legacy fields are kept in model_config; PUT rotates the key; DELETE archives both; grants and denials.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { auditLogs, integrations, providers, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration } from '../helpers/provider-records.ts';

const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `virtual_keys.${action}`);
const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
const KEY = 'sk-virtual-key-secret-value-0123456789';
const ROTATED = 'sk-rotated-secret-value-9876543210';

for (const backend of testBackends()) {
  describe(`virtual keys on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: string;
    const keys = {} as Record<'svcA' | 'svcB' | 'memberA', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    async function create(body: Record<string, unknown>, key?: string): Promise<{ id: string; slug: string }> {
      const answer = await ok('POST', '/virtual-keys', { name: 'Main', provider: 'openai', key: KEY, ...body }, key);
      assert.equal(answer.success, true);
      return answer.data;
    }
    async function refused(method: string, path: string, body: unknown, status: number, param: string | null, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error as { code: string };
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = (await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' })).id;
      keys.svcA = await createKey('workspace/service', { workspace_id: A });
      keys.svcB = await createKey('workspace/service', { workspace_id: B });
      const [row] = await db().insert(users).values({ organisationId: orgId(), email: 'member@example.com', role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${A}/users`, { users: [{ id: row!.id, role: 'member' }] });
      keys.memberA = await createKey('workspace/user', { workspace_id: A, user_id: row!.id });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('create: {success, data: {slug}}; a workspace integration of its own holds the key, sealed; reads show its mask only', async () => {
      const created = await create({
        name: 'Azure main', provider: 'azure-openai', note: 'legacy', resourceName: 'my-resource', deploymentName: 'gpt4o', apiVersion: '2024-06-01',
        deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'gpt4o-mini', alias: 'gpt-4o-mini', is_default: true }],
        rate_limits: { type: 'requests', unit: 'rpm', value: 10 }, usage_limits: { credit_limit: 5, type: 'cost' },
        secret_mappings: [{ target_field: 'model_config.resourceName', secret_reference_id: 'azure-resource' }],
      });
      assert.match(created.slug, /^azure-main-[0-9a-f]{6}$/);
      const read = await ok('GET', `/virtual-keys/${created.slug}`);
      assert.equal(read.object, 'virtual-key');
      assert.equal(read.provider, 'azure-openai');
      assert.equal(read.status, 'active');
      assert.equal(read.workspace_id, A);
      assert.equal(read.masked_key, 'sk-v********6789');
      assert.deepEqual(read.model_config, {
        apiVersion: '2024-06-01', resourceName: 'my-resource', deploymentName: 'gpt4o',
        deploymentConfig: [{ apiVersion: '2024-06-01', deploymentName: 'gpt4o-mini', alias: 'gpt-4o-mini', is_default: true }],
      });
      assert.deepEqual(read.rate_limits, [{ type: 'requests', unit: 'rpm', value: 10 }]);
      assert.deepEqual(read.secret_mappings, [{ target_field: 'model_config.resourceName', secret_reference_id: 'azure-resource' }]);
      assert.ok(!JSON.stringify(read).includes(KEY), 'the key is never shown');
      const [provider] = await db().select().from(providers).where(eq(providers.id, created.id));
      assert.equal(provider!.isVirtualKey, true);
      const [own] = await db().select().from(integrations).where(eq(integrations.id, provider!.integrationId));
      assert.equal(own!.workspaceId, A, 'a workspace integration');
      assert.equal(own!.aiProviderId, 'azure-openai');
      assert.equal(cipher.open(own!.sealedKey!), KEY);
      const audit = await db().select().from(auditLogs).where(and(eq(auditLogs.action, 'virtual_keys.create'), eq(auditLogs.resourceId, created.id)));
      assert.equal(audit.length, 1);
      assert.ok(!audit[0]!.requestBody!.includes(KEY), 'the audit record masks the key');
    });

    test('no table holds a virtual key in clear', async () => {
      await create({ name: 'Scanned', key: KEY });
      for (const table of ['providers', 'integrations', 'audit_logs', 'request_logs']) {
        const rows = await db().execute(`select * from ${table}`);
        const text = JSON.stringify((rows as unknown as { rows?: unknown[] }).rows ?? rows);
        assert.ok(!text.includes(KEY), `${table} holds the key in clear`);
      }
    });

    test('bad bodies are 400s naming the field', async () => {
      const cases: Array<[unknown, string]> = [
        [{ name: 'x', key: KEY }, 'provider'],
        [{ provider: 'no-such-provider', key: KEY }, 'provider'],
        [{ provider: 'openai', key: '' }, 'key'],
        [{ provider: 'openai', secret_mappings: [{ target_field: 'configurations.x', secret_reference_id: 's' }] }, 'secret_mappings[0].target_field'],
        [{ provider: 'openai', secret_mappings: [{ target_field: 'key', secret_reference_id: 's' }, { target_field: 'key', secret_reference_id: 't' }] }, 'secret_mappings[1].target_field'],
        [{ provider: 'openai', deploymentConfig: [{ apiVersion: 'v', deploymentName: 'a', is_default: true }, { apiVersion: 'v', deploymentName: 'b', is_default: true }] }, 'deploymentConfig'],
        [{ provider: 'openai', deploymentConfig: [{ deploymentName: 'a' }] }, 'deploymentConfig[0].apiVersion'],
        [{ provider: 'openai', rate_limits: { type: 'requests', unit: 'rpm' } }, 'rate_limits.value'],
        [{ provider: 'openai', slug: 'bad slug' }, 'slug'],
        [{ provider: 'openai', surprise: true }, 'surprise'],
      ];
      for (const [body, param] of cases) await refused('POST', '/virtual-keys', body, 400, param);
      await refused('PUT', '/virtual-keys/whatever', {}, 400, 'body');
    });

    test('PUT rotates the key (sealed again), merges the legacy fields, answers {}', async () => {
      const created = await create({ name: 'Rotating', resourceName: 'first', apiVersion: 'v1' });
      const [before] = await db().select().from(providers).where(eq(providers.id, created.id));
      assert.deepEqual(await ok('PUT', `/virtual-keys/${created.slug}`, { key: ROTATED, resourceName: 'second', apiVersion: null, note: 'rotated' }), {});
      const [own] = await db().select().from(integrations).where(eq(integrations.id, before!.integrationId));
      assert.equal(cipher.open(own!.sealedKey!), ROTATED);
      const read = await ok('GET', `/virtual-keys/${created.id}`);
      assert.deepEqual(read.model_config, { resourceName: 'second' });
      assert.equal(read.note, 'rotated');
      assert.equal(read.masked_key, 'sk-r********3210');
      await ok('PUT', `/virtual-keys/${created.slug}`, { key: read.masked_key });
      const [kept] = await db().select().from(integrations).where(eq(integrations.id, before!.integrationId));
      assert.equal(cipher.open(kept!.sealedKey!), ROTATED, 'the key sent back as shown keeps the stored one');
    });

    test('DELETE archives the key and its integration; a provider made through /providers is no virtual key here', async () => {
      const created = await create({ name: 'Retired' });
      assert.deepEqual(await ok('DELETE', `/virtual-keys/${created.slug}`), {});
      const [row] = await db().select().from(providers).where(eq(providers.id, created.id));
      assert.equal(row!.status, 'archived');
      const [own] = await db().select().from(integrations).where(eq(integrations.id, row!.integrationId));
      assert.equal(own!.status, 'archived');
      await refused('GET', `/virtual-keys/${created.slug}`, undefined, 404, 'slug');
      const shared = await insertIntegration(db(), cipher, { organisationId: orgId(), slug: 'shared', key: 'sk-shared', global: true });
      const plain = await ok('POST', '/providers', { name: 'Plain', integration_id: shared.slug, slug: 'plain' });
      for (const [method, body] of [['GET'], ['PUT', { key: 'sk-steal-the-shared-integration' }], ['DELETE']] as const) {
        const error = await refused(method, `/virtual-keys/${plain.slug}`, body, 404, 'slug');
        assert.equal(error.code, 'provider_not_found');
      }
      const [kept] = await db().select().from(integrations).where(eq(integrations.id, shared.id));
      assert.equal(cipher.open(kept!.sealedKey!), 'sk-shared', 'the shared integration\'s key is untouched');
    });

    test('lists: an admin key sees every workspace\'s virtual keys (not plain providers); a workspace key its own', async () => {
      const inB = await create({ name: 'In B', workspace_id: B }, keys.svcB.key);
      const all = await ok('GET', '/virtual-keys?page_size=1000');
      assert.equal(all.object, 'list');
      assert.ok(all.data.some((row: { id: string }) => row.id === inB.id));
      assert.ok(all.data.every((row: { object: string; slug: string }) => row.object === 'virtual-key' && row.slug !== 'plain'));
      const ownA = await ok('GET', '/virtual-keys?page_size=1000', undefined, keys.svcA.key);
      assert.ok(ownA.data.length > 0 && ownA.data.every((row: { workspace_id: string }) => row.workspace_id === A));
      const onlyB = await ok('GET', '/virtual-keys?workspace_id=team-b');
      assert.deepEqual(onlyB.data.map((row: { id: string }) => row.id), [inB.id]);
      await refused('GET', '/virtual-keys?workspace_id=team-b', undefined, 404, null, keys.svcA.key);
    });

    test('grants: a workspace key creates in its own workspace; members read but do not change; another workspace is a 404', async () => {
      const bySvc = await create({ name: 'By svc' }, keys.svcA.key);
      assert.equal((await ok('GET', `/virtual-keys/${bySvc.id}`)).workspace_id, A);
      const denied = await refused('POST', '/virtual-keys', { provider: 'openai', key: KEY }, 403, null, keys.memberA.key);
      assert.equal(denied.code, 'workspace_manager_required');
      await refused('PUT', `/virtual-keys/${bySvc.id}`, { key: ROTATED }, 403, null, keys.memberA.key);
      assert.equal((await ok('GET', `/virtual-keys/${bySvc.slug}`, undefined, keys.memberA.key)).id, bySvc.id);
      await refused('POST', '/virtual-keys', { provider: 'openai', workspace_id: A }, 404, null, keys.svcB.key);
      await refused('GET', `/virtual-keys/${bySvc.id}`, undefined, 404, 'slug', keys.svcB.key);
      await refused('DELETE', `/virtual-keys/${bySvc.id}`, undefined, 404, 'slug', keys.svcB.key);
      const noScope = await ok('POST', '/api-keys/workspace/service', { name: 'p', scopes: ['providers.read'], workspace_id: A });
      assert.equal((await refused('GET', '/virtual-keys', undefined, 403, null, noScope.key)).code, 'missing_scope');
    });
  });
}
