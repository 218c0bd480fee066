/**
 * The Integrations group over HTTP, on every back-end: create (default provider, cloud settings, SSRF rules),
 * masked reads, no credential in clear in any table, update with masked values sent back, key rotation of stored
 * values, archive, bad input, grants and denials, scopes, the list's filters, and the `integrations.changed`
 * announcement. Models and workspace access: integrations-models-workspaces.test.ts.
 */
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { INTEGRATIONS_CHANGED, openIntegrationCredentials } from '../../src/domain/integrations/credentials.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { auditLogs, integrations, integrationWorkspaces, providers, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `integrations.${action}`);
const KEY = 'sk-test-0123456789abcdef-very-secret';
const AWS_SECRET = 'aws-secret-wJalrXUtnFEMI-K7MDENG';
const SERVICE_ACCOUNT = { type: 'service_account', project_id: 'p', private_key: '-----BEGIN PRIVATE KEY-----vertex-private-----END' };
const TEST_KEY = Buffer.from(TEST_ENCRYPTION_KEY, 'hex');
const cipher = createSecretCipher(TEST_KEY);

for (const backend of testBackends()) {
  describe(`integrations on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string; // the default workspace: an admin key's own
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA', { id: string; key: string }>;
    const announced: string[] = [];
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });
    const create = (body: Record<string, unknown>, key?: string) => ok('POST', '/integrations', { name: 'OpenAI prod', ai_provider_id: 'openai', ...body }, key);
    const stored = async (id: string) => (await db().select().from(integrations).where(eq(integrations.id, id)))[0]!;

    async function member(workspaceId: string, email: string, role: string) {
      const [row] = await db().insert(users).values({ organisationId: orgId(), email, role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
      return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
    }
    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }
    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }
    /** the announcements a call made on `integrations.changed` (the in-process kv delivers them synchronously) */
    async function announcements(action: () => Promise<unknown>): Promise<number> {
      const before = announced.length;
      await action();
      return announced.length - before;
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      await gateway.gateway.kv.subscribe(INTEGRATIONS_CHANGED, (message) => announced.push(message));
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

    test('an admin key creates an organisation integration: key sealed, masked reads, a default provider in its workspace, audited, announced', async () => {
      let created: { id: string; slug: string } = { id: '', slug: '' };
      const count = await announcements(async () => {
        created = await create({ slug: 'openai-prod', key: KEY, description: 'main', configurations: { custom_host: 'http://127.0.0.1:9/v1' } });
      });
      assert.deepEqual(created, { id: created.id, slug: 'openai-prod' });
      assert.equal(count, 1, 'announced once on integrations.changed');
      const details = await ok('GET', '/integrations/openai-prod');
      const { created_at: createdAt, last_updated_at: updatedAt, ...rest } = details;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
      assert.deepEqual(rest, {
        id: created.id, organisation_id: orgId(), workspace_id: null, ai_provider_id: 'openai', name: 'OpenAI prod', slug: 'openai-prod',
        description: 'main', status: 'active', object: 'integration', masked_key: `sk-t********${KEY.slice(-4)}`,
        configurations: { custom_host: 'http://127.0.0.1:9/v1' }, global_workspace_access_settings: null, allow_all_models: true,
        workspace_count: 1, secret_mappings: [], pricing_adjustments: null,
      });
      assert.equal((await ok('GET', `/integrations/${created.id}`)).slug, 'openai-prod', 'by id too');
      const [provider] = await db().select().from(providers).where(eq(providers.integrationId, created.id));
      assert.deepEqual([provider?.workspaceId, provider?.slug, provider?.name, provider?.status], [A, 'openai-prod', 'OpenAI prod', 'active']);
      const [access] = await db().select().from(integrationWorkspaces).where(eq(integrationWorkspaces.integrationId, created.id));
      assert.deepEqual([access?.workspaceId, access?.enabled], [A, true], 'enabled for the workspace of its provider');
      await audited('integrations.create', 'success', created.id);
      const generated = await create({ name: 'Ünïcode Team!', create_default_provider: false });
      assert.match(generated.slug, /^openai-unicode-team-[0-9a-f]{6}$/);
      assert.equal((await db().select().from(providers).where(eq(providers.integrationId, generated.id))).length, 0, 'no provider asked for');
      assert.equal((await ok('GET', `/integrations/${generated.slug}`)).workspace_count, 0, 'and enabled for no workspace');
    });

    test('cloud settings are what the adapter declares; secrets are sealed in every table, masked in reads, opened for requests', async () => {
      const bedrock = await create({
        name: 'Bedrock', ai_provider_id: 'bedrock', slug: 'bedrock-main', create_default_provider: false,
        configurations: { aws_region: 'eu-west-1', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: AWS_SECRET },
        secret_mappings: [{ target_field: 'configurations.aws_session_token', secret_reference_id: 'aws-token' }],
      });
      const vertex = await create({ name: 'Vertex', ai_provider_id: 'vertex-ai', slug: 'vertex-main', key: 'ya29.token-value-long-enough', configurations: { vertex_region: 'us-central1', vertex_project_id: 'p', vertex_service_account_json: SERVICE_ACCOUNT } });
      assert.deepEqual((await ok('GET', '/integrations/bedrock-main')).configurations, { aws_region: 'eu-west-1', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: '********' });
      const vertexShown = await ok('GET', '/integrations/vertex-main');
      assert.deepEqual(vertexShown.configurations, { vertex_region: 'us-central1', vertex_project_id: 'p', vertex_service_account_json: '********' });
      assert.equal(vertexShown.masked_key, 'ya29********ough');
      assert.deepEqual((await ok('GET', '/integrations/bedrock-main')).secret_mappings, [{ target_field: 'configurations.aws_session_token', secret_reference_id: 'aws-token' }]);
      // a key file given as text has no secret-looking name inside it: the audit record must mask it all the same,
      // on a success and on a denial alike
      const asText = { vertex_region: 'us-central1', vertex_service_account_json: JSON.stringify({ ...SERVICE_ACCOUNT, private_key: 'text-form-private' }) };
      await create({ name: 'Vertex text', ai_provider_id: 'vertex-ai', configurations: asText, create_default_provider: false });
      const unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'none', scopes: ['completions.write'] });
      assert.equal((await call('POST', '/integrations', unscoped.key, { name: 'x', ai_provider_id: 'vertex-ai', configurations: asText })).status, 403);
      // every table this group writes, and the audit log, hold no credential in clear
      const tables = JSON.stringify([
        await db().select().from(integrations), await db().select().from(providers), await db().select().from(integrationWorkspaces), await db().select().from(auditLogs),
      ]);
      for (const secret of [KEY, AWS_SECRET, 'vertex-private', 'text-form-private', 'ya29.token-value-long-enough']) assert.ok(!tables.includes(secret), `${secret} is stored in clear`);
      const row = await stored(bedrock.id);
      assert.ok(String(row.configurations.aws_secret_access_key).startsWith(`enc:v2:${cipher.keyId}:`), 'sealed with the current key, its id in front');
      assert.equal(row.configurations.aws_region, 'eu-west-1');
      assert.deepEqual(openIntegrationCredentials(row, cipher), { key: undefined, configurations: { aws_region: 'eu-west-1', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: AWS_SECRET } });
      const opened = openIntegrationCredentials(await stored(vertex.id), cipher);
      assert.equal(opened.key, 'ya29.token-value-long-enough');
      assert.deepEqual(JSON.parse(opened.configurations.vertex_service_account_json!), SERVICE_ACCOUNT, 'a key file is stored as the JSON text the adapter reads');
    });

    test('bad bodies are 400s naming the field and write nothing; an unknown workspace is a 404', async () => {
      const valid = { name: 'bad', ai_provider_id: 'openai' };
      const cases: Array<[unknown, string]> = [
        [{ ai_provider_id: 'openai' }, 'name'],
        [{ name: 'bad' }, 'ai_provider_id'],
        [{ ...valid, ai_provider_id: 'no-such-provider' }, 'ai_provider_id'],
        [{ ...valid, slug: 'bad slug' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, key: '' }, 'key'],
        [{ ...valid, key: 5 }, 'key'],
        [{ ...valid, configurations: { organisation: 'x' } }, 'configurations.organisation'],
        [{ ...valid, configurations: { aws_region: 'eu-west-1' } }, 'configurations.aws_region'],
        [{ ...valid, ai_provider_id: 'bedrock', configurations: { aws_region: 5 } }, 'configurations.aws_region'],
        [{ ...valid, configurations: { custom_host: 'ftp://example.com' } }, 'configurations.custom_host'],
        [{ ...valid, configurations: { custom_host: 'http://10.0.0.1/v1' } }, 'configurations.custom_host'],
        [{ ...valid, configurations: { custom_host: 'http://169.254.169.254/' } }, 'configurations.custom_host'],
        [{ ...valid, configurations: 'x' }, 'configurations'],
        [{ ...valid, secret_mappings: [{ target_field: 'configurations.nope', secret_reference_id: 's' }] }, 'secret_mappings[0].target_field'],
        [{ ...valid, secret_mappings: [{ target_field: 'key', secret_reference_id: 's' }, { target_field: 'key', secret_reference_id: 't' }] }, 'secret_mappings[1].target_field'],
        [{ ...valid, secret_mappings: [{ target_field: 'key', secret_reference_id: 'bad id' }] }, 'secret_mappings[0].secret_reference_id'],
        [{ ...valid, secret_mappings: [{ target_field: 'key' }] }, 'secret_mappings[0].secret_reference_id'],
        [{ ...valid, pricing_adjustments: { multiplier: { default: -1 } } }, 'pricing_adjustments.multiplier.default'],
        [{ ...valid, pricing_adjustments: { multiplier: { sideways: 1 } } }, 'pricing_adjustments.multiplier.sideways'],
        [{ ...valid, create_default_provider: 'yes' }, 'create_default_provider'],
        [{ ...valid, default_provider_slug: 'a b' }, 'default_provider_slug'],
        [{ ...valid, default_provider_slug: MISSING }, 'default_provider_slug'],
        [{ ...valid, surprise: 1 }, 'surprise'],
      ];
      for (const [body, param] of cases) await expectParam('POST', '/integrations', body, param);
      assert.equal((await expectParam('POST', '/integrations', cases[11]![0], 'configurations.custom_host')).code, 'custom_host_blocked');
      await expectParam('POST', '/integrations', { ...valid, workspace_id: MISSING }, null, 404);
      assert.equal((await db().select().from(integrations).where(eq(integrations.name, 'bad'))).length, 0, 'a refused create writes nothing');
      await audited('integrations.create', 'failed');
    });

    test('taken slugs are 409s naming what chose them', async () => {
      await create({ slug: 'taken', create_default_provider: false });
      const again = await admin('POST', '/integrations', { name: 'x', ai_provider_id: 'openai', slug: 'taken' });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'integration_slug_taken');
      const clash = await admin('POST', '/integrations', { name: 'x', ai_provider_id: 'openai', slug: 'other', default_provider_slug: 'openai-prod' });
      assert.equal(clash.status, 409, JSON.stringify(clash.body));
      assert.deepEqual([clash.body.error.code, clash.body.error.param], ['provider_slug_taken', 'default_provider_slug']);
      assert.equal((await admin('GET', '/integrations/other')).status, 404, 'nothing left behind');
    });

    test('update: masked values sent back keep the stored ones, configurations are replaced, a legacy sealed key is re-sealed', async () => {
      const created = await create({ slug: 'to-update', key: KEY, ai_provider_id: 'bedrock', configurations: { aws_region: 'us-east-1', aws_secret_access_key: AWS_SECRET } });
      const shown = await ok('GET', '/integrations/to-update');
      const count = await announcements(() => ok('PUT', '/integrations/to-update', { name: 'Renamed', key: shown.masked_key, configurations: { ...shown.configurations, aws_region: 'eu-central-1' } }));
      assert.equal(count, 1);
      let row = await stored(created.id);
      assert.deepEqual(openIntegrationCredentials(row, cipher), { key: KEY, configurations: { aws_region: 'eu-central-1', aws_secret_access_key: AWS_SECRET } });
      assert.equal(row.name, 'Renamed');
      await audited('integrations.update', 'success', created.id);
      // a value sealed before key ids existed (enc:v1:) keeps opening, and a write moves it to the current key
      const iv = randomBytes(12);
      const gcm = createCipheriv('aes-256-gcm', TEST_KEY, iv);
      const body = Buffer.concat([gcm.update('sk-legacy-key-sealed-long-ago', 'utf8'), gcm.final()]);
      await db().update(integrations).set({ sealedKey: `enc:v1:${Buffer.concat([iv, gcm.getAuthTag(), body]).toString('base64')}` }).where(eq(integrations.id, created.id));
      assert.equal(openIntegrationCredentials(await stored(created.id), cipher).key, 'sk-legacy-key-sealed-long-ago');
      await ok('PUT', '/integrations/to-update', { key: '********', configurations: { aws_region: 'eu-central-1' } });
      row = await stored(created.id);
      assert.ok(row.sealedKey!.startsWith(`enc:v2:${cipher.keyId}:`), row.sealedKey!);
      assert.deepEqual(openIntegrationCredentials(row, cipher), { key: 'sk-legacy-key-sealed-long-ago', configurations: { aws_region: 'eu-central-1' } }, 'the secret left out is removed');
      await expectParam('PUT', '/integrations/to-update', { configurations: { aws_secret_access_key: '********' } }, 'configurations.aws_secret_access_key');
      await ok('PUT', '/integrations/to-update', { key: 'sk-new-key-0123456789abcdef' });
      assert.equal((await ok('GET', '/integrations/to-update')).masked_key, 'sk-n********cdef');
      const keyless = await create({ slug: 'keyless', create_default_provider: false });
      await expectParam('PUT', `/integrations/${keyless.id}`, { key: '********' }, 'key');
      for (const [bad, param] of [[{}, 'body'], [{ name: '' }, 'name'], [{ ai_provider_id: 'anthropic' }, 'ai_provider_id'], [{ configurations: { custom_host: 'http://[::1]/' } }, 'configurations.custom_host']] as const) {
        await expectParam('PUT', '/integrations/to-update', bad, param);
      }
      await expectParam('PUT', `/integrations/${MISSING}`, { name: 'x' }, null, 404);
      await expectParam('GET', '/integrations/no.such', undefined, 'slug');
    });

    test('delete archives: gone from every read, credentials wiped, audited and announced', async () => {
      const created = await create({ slug: 'to-delete', key: KEY, ai_provider_id: 'bedrock', configurations: { aws_region: 'us-east-1', aws_secret_access_key: AWS_SECRET } });
      assert.equal(await announcements(() => ok('DELETE', '/integrations/to-delete')), 1);
      const row = await stored(created.id);
      assert.deepEqual([row.status, row.sealedKey, row.configurations], ['archived', null, { aws_region: 'us-east-1' }]);
      for (const method of ['GET', 'PUT', 'DELETE']) assert.equal((await admin(method, `/integrations/${created.id}`, method === 'PUT' ? { name: 'y' } : undefined)).status, 404, method);
      assert.ok(!(await ok('GET', '/integrations?page_size=1000')).data.some((item: { id: string }) => item.id === created.id));
      await audited('integrations.delete', 'success', created.id);
    });

    test('workspace keys: their own workspace\'s integrations (managers change them), organisation ones enabled for them read-only', async () => {
      const own = await create({ slug: 'a-own', key: KEY }, keys.svcA.key);
      assert.equal((await ok('GET', '/integrations/a-own')).workspace_id, A, 'a workspace key creates in its workspace');
      const [provider] = await db().select().from(providers).where(eq(providers.integrationId, own.id));
      assert.equal(provider?.workspaceId, A);
      await ok('PUT', '/integrations/a-own', { description: 'by a manager' }, keys.managerA.key);
      assert.equal((await ok('GET', '/integrations/a-own', undefined, keys.memberA.key)).description, 'by a manager', 'members read');
      for (const [method, body] of [['PUT', { name: 'm' }], ['DELETE', undefined]] as const) {
        const denied = await call(method, '/integrations/a-own', keys.memberA.key, body);
        assert.deepEqual([denied.status, denied.body.error.code], [403, 'workspace_manager_required']);
      }
      assert.equal((await call('POST', '/integrations', keys.memberA.key, { name: 'm', ai_provider_id: 'openai' })).status, 403);
      await audited('integrations.create', 'denied');
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        assert.equal((await call(method, '/integrations/a-own', keys.svcB.key, body)).status, 404, `${method} from B`);
      }
      await expectParam('POST', '/integrations', { name: 'x', ai_provider_id: 'openai', workspace_id: B.id }, null, 404, keys.svcA.key);
      // openai-prod (first test) is enabled for A only: A's keys read it, never change it; B does not see it
      assert.equal((await ok('GET', '/integrations/openai-prod', undefined, keys.svcA.key)).masked_key, `sk-t********${KEY.slice(-4)}`);
      const denied = await call('PUT', '/integrations/openai-prod', keys.svcA.key, { name: 'x' });
      assert.deepEqual([denied.status, denied.body.error.code], [403, 'admin_key_required']);
      await audited('integrations.update', 'denied');
      assert.equal((await call('GET', '/integrations/openai-prod', keys.svcB.key)).status, 404);
      const seenByA = (await ok('GET', '/integrations?page_size=1000', undefined, keys.svcA.key)).data.map((item: { slug: string }) => item.slug);
      assert.ok(seenByA.includes('a-own') && seenByA.includes('openai-prod'), seenByA.join());
      assert.ok(!seenByA.includes('bedrock-main'), 'not enabled for A');
      const seenByB = (await ok('GET', '/integrations?page_size=1000', undefined, keys.svcB.key)).data;
      assert.deepEqual(seenByB, []);
      assert.equal((await call('GET', `/integrations?workspace_id=${A}`, keys.svcB.key)).status, 404);
      await ok('DELETE', '/integrations/a-own', undefined, keys.svcA.key);
    });

    test('every route needs its scope: 403 naming it, audited as denied', async () => {
      const unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'none', scopes: ['completions.write'] });
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/integrations', { name: 'x', ai_provider_id: 'openai' }, 'integrations.create'],
        ['GET', '/integrations', undefined, 'integrations.list'],
        ['GET', '/integrations/openai-prod', undefined, 'integrations.read'],
        ['PUT', '/integrations/openai-prod', { name: 'x' }, 'integrations.update'],
        ['DELETE', '/integrations/openai-prod', undefined, 'integrations.delete'],
        ['GET', '/integrations/openai-prod/models', undefined, 'integrations.read'],
        ['PUT', '/integrations/openai-prod/models', { models: [] }, 'integrations.update'],
        ['DELETE', '/integrations/openai-prod/models?slugs=x', undefined, 'integrations.update'],
        ['GET', '/integrations/openai-prod/workspaces', undefined, 'integrations.read'],
        ['PUT', '/integrations/openai-prod/workspaces', { workspaces: [] }, 'integrations.update'],
      ];
      for (const [method, path, body, scope] of routes) {
        const response = await call(method, path, unscoped.key, body);
        assert.deepEqual([response.status, response.body.error.code], [403, 'missing_scope'], `${method} ${path}`);
        assert.ok(response.body.error.message.includes(scope), response.body.error.message);
      }
      await audited('integrations.workspaces.update', 'denied');
      await audited('integrations.models.delete', 'denied');
    });

    test('list: the envelope, pages, type and workspace filters; bad queries name the parameter', async () => {
      const inB = await create({ slug: 'b-own', workspace_id: 'team-b' });
      const all = await ok('GET', '/integrations?page_size=1000');
      assert.equal(all.object, 'list');
      assert.equal(all.total, all.data.length);
      assert.equal(all.data[0].masked_key, undefined, 'summaries carry no key, not even masked');
      const paged = await ok('GET', '/integrations?page_size=1&current_page=1');
      assert.deepEqual([paged.total, paged.data.map((item: { id: string }) => item.id)], [all.total, [all.data[1].id]]);
      const organisation = await ok('GET', '/integrations?type=organisation&page_size=1000');
      assert.ok(organisation.data.every((item: { workspace_id: string | null }) => item.workspace_id === null) && organisation.total > 0);
      assert.deepEqual((await ok('GET', '/integrations?type=workspace')).data.map((item: { id: string }) => item.id), [inB.id]);
      const usableByB = await ok('GET', '/integrations?workspace_id=team-b');
      assert.deepEqual(usableByB.data.map((item: { id: string }) => item.id), [inB.id], 'B\'s own; no organisation integration is enabled for B');
      for (const query of ['page_size=0', 'page_size=1001', 'current_page=-1', 'type=some']) await expectParam('GET', `/integrations?${query}`, undefined, query.split('=')[0]!);
      await expectParam('GET', `/integrations?workspace_id=${MISSING}`, undefined, null, 404);
    });
  });
}
