/**
 * The Providers group over HTTP, on every back-end: create on an integration the workspace may use (and the 403 and
 * 404s when it may not), validation, slugs, lists per workspace, reads by slug or id, updates (limits, expiry,
 * reset_usage), archive, grants and denials by role and scope, audit records; the status a read shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { providerStatus } from '../../src/domain/providers/status.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { auditLogs, providers, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { insertIntegration, setIntegrationAccess } from '../helpers/provider-records.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `providers.${action}`);
const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
const FUTURE = '2999-01-01T00:00:00.000Z';
const PROVIDER_KEYS = [
  'created_at', 'expires_at', 'id', 'integration_id', 'last_updated_at', 'name', 'note', 'object', 'rate_limits', 'reset_usage',
  'slug', 'status', 'usage_limits', 'usage_reset_at', 'workspace_id',
];

test('status: expired once expires_at has passed, exhausted when the injected check says so, active otherwise', async () => {
  const subject = { id: 'p', slug: 's', organisationId: 'o', workspaceId: 'w', usageLimits: null, usageResetAt: null, expiresAt: new Date(1000) };
  const never = async () => false;
  assert.equal(await providerStatus(subject, 999, never), 'active');
  assert.equal(await providerStatus(subject, 1000, never), 'expired');
  assert.equal(await providerStatus({ ...subject, expiresAt: null }, 5000, async () => true), 'exhausted');
  assert.equal(await providerStatus(subject, 5000, async () => true), 'expired', 'expired wins over exhausted');
});

for (const backend of testBackends()) {
  describe(`providers on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: { id: string; slug: string };
    const integration = {} as Record<'shared' | 'enabledForA' | 'notEnabled' | 'disabledForA' | 'ownB' | 'archived', { id: string; slug: string }>;
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);
    let seq = 0;

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const create = (body: Record<string, unknown>, key?: string) =>
      ok('POST', '/providers', { name: `Provider ${++seq}`, integration_id: integration.shared.slug, ...body }, key) as Promise<{ id: string; slug: string }>;
    const createKey = (path: string, body: Record<string, unknown>, scopes = SCOPES) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes, ...body });

    async function member(workspaceId: string, email: string, role: string) {
      const [row] = await db().insert(users).values({ organisationId: orgId(), email, role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
      return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
    }

    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    async function refused(method: string, path: string, body: unknown, status: number, param: string | null, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)?.slice(0, 200)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error as { code: string; message: string };
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
      keys.svcA = await createKey('workspace/service', { workspace_id: A });
      keys.svcB = await createKey('workspace/service', { workspace_id: B.id });
      keys.managerA = await member(A, 'manager@example.com', 'manager');
      keys.memberA = await member(A, 'member@example.com', 'member');
      const organisationId = orgId();
      integration.shared = await insertIntegration(db(), cipher, { organisationId, slug: 'shared-openai', key: 'sk-shared-secret-0001', global: true });
      integration.enabledForA = await insertIntegration(db(), cipher, { organisationId, slug: 'enabled-for-a', key: 'sk-a' });
      await setIntegrationAccess(db(), integration.enabledForA.id, A, true);
      integration.notEnabled = await insertIntegration(db(), cipher, { organisationId, slug: 'not-enabled', key: 'sk-n' });
      integration.disabledForA = await insertIntegration(db(), cipher, { organisationId, slug: 'disabled-for-a', key: 'sk-d', global: true });
      await setIntegrationAccess(db(), integration.disabledForA.id, A, false);
      integration.ownB = await insertIntegration(db(), cipher, { organisationId, slug: 'own-b', key: 'sk-b', workspaceId: B.id });
      integration.archived = await insertIntegration(db(), cipher, { organisationId, slug: 'archived-one', key: 'sk-x', global: true, status: 'archived' });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('an admin key creates a provider in the default workspace: {id, slug}, then reads it by slug and by id', async () => {
      const created = await create({ name: 'Team OpenAI', slug: 'team-openai', note: 'for the team', rate_limits: { type: 'requests', unit: 'rpm', value: 60 }, expires_at: FUTURE });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug']);
      assert.equal(created.slug, 'team-openai');
      const read = await ok('GET', '/providers/team-openai');
      assert.deepEqual(Object.keys(read).sort(), PROVIDER_KEYS);
      const { created_at: createdAt, last_updated_at: updatedAt, ...rest } = read;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
      assert.deepEqual(rest, {
        id: created.id, name: 'Team OpenAI', slug: 'team-openai', workspace_id: A, note: 'for the team', status: 'active',
        usage_limits: null, reset_usage: null, usage_reset_at: null, rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
        expires_at: FUTURE, integration_id: 'shared-openai', object: 'provider',
      });
      assert.equal((await ok('GET', `/providers/${created.id}`)).slug, 'team-openai', 'addressed by id too');
      assert.equal((await ok('GET', `/providers/team-openai?workspace_id=${A}`)).id, created.id);
      await audited('providers.create', 'success', created.id);
    });

    test('a generated slug is <name>-<6 hex>; integration_id takes an id too; a taken slug is a 409, another workspace may reuse it', async () => {
      const generated = await create({ name: 'Mistral Prod!', integration_id: integration.shared.id });
      assert.match(generated.slug, /^mistral-prod-[0-9a-f]{6}$/);
      await create({ slug: 'taken' });
      const again = await refused('POST', '/providers', { name: 'x', integration_id: 'shared-openai', slug: 'taken' }, 409, null);
      assert.equal(again.code, 'provider_slug_taken');
      await audited('providers.create', 'failed');
      const inB = await create({ slug: 'taken', workspace_id: 'team-b' });
      assert.equal((await ok('GET', '/providers/taken?workspace_id=team-b')).id, inB.id);
    });

    test('the integration must be one the workspace may use: unknown, archived, another workspace\'s (404); not enabled (403)', async () => {
      const body = (integrationId: string, extra: Record<string, unknown> = {}) => ({ name: 'x', integration_id: integrationId, ...extra });
      for (const missing of ['no-such-integration', MISSING, 'archived-one', 'own-b']) {
        const error = await refused('POST', '/providers', body(missing), 404, 'integration_id');
        assert.equal(error.code, 'integration_not_found', missing);
      }
      for (const closed of ['not-enabled', 'disabled-for-a']) {
        const error = await refused('POST', '/providers', body(closed), 403, 'integration_id');
        assert.equal(error.code, 'integration_not_enabled', closed);
        assert.match(error.message, /PUT \/integrations\//);
      }
      await audited('providers.create', 'denied');
      assert.equal((await create({ integration_id: 'enabled-for-a' })).slug.length > 0, true, 'an enabled access row');
      await create({ integration_id: 'own-b', workspace_id: B.id });
      await refused('POST', '/providers', body('enabled-for-a', { workspace_id: B.id }), 403, 'integration_id');
    });

    test('bad bodies are 400s naming the field, and leave nothing behind', async () => {
      const valid = { name: 'bad', integration_id: 'shared-openai' };
      const cases: Array<[unknown, string]> = [
        [{ integration_id: 'shared-openai' }, 'name'],
        [{ ...valid, name: '' }, 'name'],
        [{ name: 'bad' }, 'integration_id'],
        [{ ...valid, integration_id: 'has space' }, 'integration_id'],
        [{ ...valid, slug: 'bad slug' }, 'slug'],
        [{ ...valid, slug: '' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, slug: 'x'.repeat(256) }, 'slug'],
        [{ ...valid, rate_limits: { type: 'requests', unit: 'rps', value: 1 } }, 'rate_limits.unit'],
        [{ ...valid, rate_limits: [{ type: 'requests', unit: 'rpm', value: -1 }] }, 'rate_limits[0].value'],
        [{ ...valid, usage_limits: { credit_limit: 0 } }, 'usage_limits.credit_limit'],
        [{ ...valid, usage_limits: { periodic_reset: 'monthly', periodic_reset_days: 3 } }, 'usage_limits.periodic_reset_days'],
        [{ ...valid, expires_at: '2000-01-01T00:00:00Z' }, 'expires_at'],
        [{ ...valid, expires_at: 'tomorrow' }, 'expires_at'],
        [{ ...valid, workspace_id: 'no/slash' }, 'workspace_id'],
        [{ ...valid, surprise: 1 }, 'surprise'],
        [[valid], 'body'],
      ];
      for (const [body, param] of cases) await refused('POST', '/providers', body, 400, param);
      assert.equal((await db().select().from(providers).where(eq(providers.name, 'bad'))).length, 0);
      await refused('POST', '/providers', { ...valid, workspace_id: MISSING }, 404, null);
    });

    test('lists: workspace_id is required with an organisation key; a workspace key lists its own; paging and totals', async () => {
      const error = await refused('GET', '/providers', undefined, 400, 'workspace_id');
      assert.match(error.message, /required/);
      await create({ workspace_id: B.id, slug: 'listed-in-b' });
      const inB = await ok('GET', `/providers?workspace_id=${B.slug}`);
      assert.equal(inB.object, 'list');
      assert.ok(inB.data.some((row: { slug: string }) => row.slug === 'listed-in-b'));
      assert.ok(inB.data.every((row: { workspace_id: string; object: string }) => row.workspace_id === B.id && row.object === 'provider'));
      const own = await ok('GET', '/providers', undefined, keys.svcB.key);
      assert.deepEqual(own.data.map((row: { id: string }) => row.id).sort(), inB.data.map((row: { id: string }) => row.id).sort());
      assert.equal(own.total, inB.total);
      const paged = await ok('GET', `/providers?workspace_id=${B.id}&page_size=1&current_page=1`);
      assert.equal(paged.data.length, 1);
      assert.equal(paged.total, inB.total);
      await refused('GET', `/providers?workspace_id=${B.id}`, undefined, 404, null, keys.svcA.key);
      await refused('GET', '/providers?page_size=0&workspace_id=team-b', undefined, 400, 'page_size');
    });

    test('update: fields, a rate limit object stored as a list, expiry removed, reset_usage; {id, slug} back', async () => {
      const created = await create({ expires_at: FUTURE });
      const answer = await ok('PUT', `/providers/${created.slug}`, {
        name: 'Renamed', note: null, rate_limits: { type: 'tokens', unit: 'rph', value: 1000 }, usage_limits: { credit_limit: 10, type: 'cost' }, expires_at: null,
      }, keys.managerA.key);
      assert.deepEqual(answer, { id: created.id, slug: created.slug });
      const read = await ok('GET', `/providers/${created.id}`);
      assert.equal(read.name, 'Renamed');
      assert.equal(read.note, null);
      assert.deepEqual(read.rate_limits, [{ type: 'tokens', unit: 'rph', value: 1000 }]);
      assert.deepEqual(read.usage_limits, { credit_limit: 10, type: 'cost' });
      assert.equal(read.expires_at, null);
      assert.equal(read.usage_reset_at, null);
      await ok('PUT', `/providers/${created.id}`, { reset_usage: true }, keys.svcA.key);
      assert.ok(Date.parse((await ok('GET', `/providers/${created.id}`)).usage_reset_at) > 0, 'reset_usage restarts the count now');
      await audited('providers.update', 'success', created.id);
      for (const [body, param] of [[{}, 'body'], [{ slug: 'new' }, 'slug'], [{ integration_id: 'other' }, 'integration_id'], [{ reset_usage: 'yes' }, 'reset_usage'], [{ expires_at: '1999-01-01T00:00:00Z' }, 'expires_at']] as const) {
        await refused('PUT', `/providers/${created.id}`, body, 400, param);
      }
      await refused('PUT', `/providers/${MISSING}`, { name: 'x' }, 404, 'slug');
      await refused('GET', '/providers/bad.slug', undefined, 400, 'slug');
    });

    test('status reads expired once expires_at has passed', async () => {
      const created = await create({ expires_at: FUTURE });
      await db().update(providers).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(providers.id, created.id));
      assert.equal((await ok('GET', `/providers/${created.id}`)).status, 'expired');
    });

    test('delete archives: {} back, then a 404 everywhere, and out of the list', async () => {
      const created = await create({ slug: 'short-lived' });
      assert.deepEqual(await ok('DELETE', '/providers/short-lived'), {});
      const [row] = await db().select().from(providers).where(eq(providers.id, created.id));
      assert.equal(row!.status, 'archived');
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const error = await refused(method, `/providers/${created.id}`, method === 'PUT' ? { name: 'x' } : undefined, 404, 'slug');
        assert.equal(error.code, 'provider_not_found');
      }
      const listed = await ok('GET', `/providers?workspace_id=${A}&page_size=1000`);
      assert.ok(!listed.data.some((entry: { id: string }) => entry.id === created.id));
      await audited('providers.delete', 'success', created.id);
    });

    test('workspace keys: their own workspace, managers change, members read; another workspace is a 404', async () => {
      const bySvc = await create({}, keys.svcA.key);
      assert.equal((await ok('GET', `/providers/${bySvc.id}`)).workspace_id, A, 'a workspace key creates in its workspace');
      await create({ workspace_id: A }, keys.managerA.key);
      const byMember = await refused('POST', '/providers', { name: 'm', integration_id: 'shared-openai' }, 403, null, keys.memberA.key);
      assert.equal(byMember.code, 'workspace_manager_required');
      await audited('providers.create', 'denied');
      await refused('PUT', `/providers/${bySvc.id}`, { name: 'm' }, 403, null, keys.memberA.key);
      await refused('DELETE', `/providers/${bySvc.id}`, undefined, 403, null, keys.memberA.key);
      await audited('providers.delete', 'denied');
      assert.equal((await ok('GET', `/providers/${bySvc.slug}`, undefined, keys.memberA.key)).id, bySvc.id, 'members read');
      assert.equal((await ok('GET', '/providers', undefined, keys.memberA.key)).object, 'list');
      await refused('POST', '/providers', { name: 'x', integration_id: 'shared-openai', workspace_id: B.id }, 404, null, keys.svcA.key);
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        await refused(method, `/providers/${bySvc.id}`, body, 404, 'slug', keys.svcB.key);
        await refused(method, `/providers/${bySvc.slug}?workspace_id=${A}`, body, 404, null, keys.svcB.key);
      }
    });

    test('a key without the scope is refused (403 naming the scope), and the denial is audited', async () => {
      const readOnly = await createKey('workspace/service', { workspace_id: A }, ['providers.read', 'providers.list']);
      const error = await refused('POST', '/providers', { name: 'x', integration_id: 'shared-openai' }, 403, null, readOnly.key);
      assert.equal(error.code, 'missing_scope');
      assert.match(error.message, /providers\.create/);
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, 'providers.create'), eq(auditLogs.apiKeyId, readOnly.id)));
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.outcome, 'denied');
      assert.equal((await ok('GET', '/providers', undefined, readOnly.key)).object, 'list');
      await refused('DELETE', `/providers/${MISSING}`, undefined, 403, null, readOnly.key);
    });
  });
}
