/** The Configs group over HTTP, on every back-end: grants and denials, validation, conflicts, versions, defaults, archive, audit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { loadConfig, loadDefaultConfig } from '../../src/domain/configs/load-config.ts';
import { auditLogs, configs, configVersions, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { maskConfigSecrets, openConfigSecrets } from '../../src/secrets/config-secrets.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `configs.${action}`);
const FALLBACK = {
  strategy: { mode: 'fallback' },
  targets: [{ provider: 'openai', api_key: 'sk-a' }, { provider: 'anthropic', api_key: 'sk-b', retry: { attempts: 2 } }],
};
/** What the admin API shows of FALLBACK: its provider keys are sealed at rest and never shown back. */
const FALLBACK_SHOWN = maskConfigSecrets(FALLBACK);
const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
const SUMMARY_KEYS = ['created_at', 'id', 'is_default', 'last_updated_at', 'name', 'organisation_id', 'owner_id', 'slug', 'status', 'updated_by', 'workspace_id'];

for (const backend of testBackends()) {
  describe(`configs on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string; // the default workspace
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });
    /** POST /configs; answers the `data` of the envelope */
    async function create(body: Record<string, unknown>, key?: string) {
      const answer = await ok('POST', '/configs', { name: 'C', config: FALLBACK, ...body }, key);
      assert.equal(answer.success, true);
      return answer.data as { id: string; slug: string; version_id: string };
    }
    const details = async (idOrSlug: string, key?: string) => (await ok('GET', `/configs/${idOrSlug}`, undefined, key)).data;

    async function member(workspaceId: string, email: string, role: string) {
      const [row] = await db().insert(users).values({ organisationId: orgId(), email, role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
      return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
    }

    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400) {
      const response = await admin(method, path, body);
      assert.equal(response.status, status, `${JSON.stringify(body)?.slice(0, 200)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
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
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('an admin key creates an organisation-wide config: the reference envelopes, a pc- slug, the config as given', async () => {
      const created = await create({ name: 'PII redactor' });
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug', 'version_id']);
      assert.match(created.slug, /^pc-pii-re-[0-9a-f]{6}$/);
      const data = await details(created.slug);
      assert.deepEqual(Object.keys(data).sort(), [...SUMMARY_KEYS, 'config', 'version_id'].sort());
      const { created_at: createdAt, last_updated_at: updatedAt, owner_id: owner, ...rest } = data;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0 && typeof owner === 'string');
      assert.deepEqual(rest, {
        id: created.id, name: 'PII redactor', slug: created.slug, organisation_id: orgId(), workspace_id: null,
        is_default: 0, status: 'active', updated_by: null, version_id: created.version_id, config: FALLBACK_SHOWN,
      });
      assert.equal((await details(created.id)).slug, created.slug, 'addressed by id too');
      const [row] = await db().select().from(configs).where(eq(configs.id, created.id));
      assert.equal(row!.currentVersionId, created.version_id);
      await audited('configs.create', 'success', created.id);
    });

    test('bad bodies are 400s naming the field (inside the config: its path), and leave nothing behind', async () => {
      const valid = { name: 'bad', config: FALLBACK };
      const deep: Record<string, unknown> = { provider: 'openai' };
      let nested = deep;
      for (let level = 0; level < 200; level += 1) nested = (nested.targets = [{ strategy: { mode: 'fallback' } }])[0] as Record<string, unknown>;
      const cases: Array<[unknown, string]> = [
        [{ config: FALLBACK }, 'name'],
        [{ ...valid, name: '' }, 'name'],
        [{ ...valid, name: 'x'.repeat(100_000) }, 'name'],
        [{ ...valid, name: 5 }, 'name'],
        [{ name: 'bad' }, 'config'],
        [{ ...valid, config: 'pc-other-123456' }, 'config'],
        [{ ...valid, config: [FALLBACK] }, 'config'],
        [{ ...valid, config: { ...FALLBACK, targets: [FALLBACK.targets[0], { provider: 'openai', retry: { attempts: 11 } }] } }, 'config.targets[1].retry.attempts'],
        [{ ...valid, config: { ...FALLBACK, targets: [FALLBACK.targets[0], { provider: 'openai', retry: { attempts: 'two' } }] } }, 'config.targets[1].retry.attempts'],
        [{ ...valid, config: { ...FALLBACK, surprise: true } }, 'config.surprise'],
        [{ ...valid, config: { strategy: { mode: 'sideways' }, targets: FALLBACK.targets } }, 'config.strategy.mode'],
        [{ ...valid, config: { provider: 'no-such-provider' } }, 'config.provider'],
        [{ ...valid, config: { strategy: { mode: 'fallback' } } }, 'config.targets'],
        [{ ...valid, isDefault: 2 }, 'isDefault'],
        [{ ...valid, isDefault: true }, 'isDefault'],
        [{ ...valid, isDefault: 1 }, 'isDefault'],
        [{ ...valid, slug: 'bad slug' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, workspace_id: 'no/slash' }, 'workspace_id'],
        [{ ...valid, is_default: 1 }, 'is_default'],
        [[valid], 'body'],
        ['just a string', 'body'],
      ];
      for (const [body, param] of cases) await expectParam('POST', '/configs', body, param);
      const tooDeep = await expectParam('POST', '/configs', { ...valid, config: deep }, `config${'.targets[0]'.repeat(32)}`);
      assert.match(tooDeep.message, /nested deeper/);
      const huge = { provider: 'openai', override_params: { blob: 'x'.repeat(300 * 1024) } };
      await expectParam('POST', '/configs', { ...valid, config: huge }, 'config');
      await expectParam('POST', '/configs', { ...valid, workspace_id: MISSING }, null, 404);
      const broken = await gateway.gateway.app.inject({
        method: 'POST', url: '/v1/configs', payload: '{"name": "x", "config": {', headers: { 'x-gateway-api-key': gateway.adminKey, 'content-type': 'application/json' },
      });
      assert.equal(broken.statusCode, 400);
      assert.equal(broken.json().error.param, 'body');
      assert.equal((await db().select().from(configs).where(eq(configs.name, 'bad'))).length, 0, 'a refused create writes nothing');
      await audited('configs.create', 'failed');
    });

    test('a taken slug is a 409; an archived config frees its slug; DELETE answers {}', async () => {
      const first = await create({ slug: 'shared', workspace_id: 'team-b' });
      assert.equal(first.slug, 'shared');
      const again = await admin('POST', '/configs', { name: 'C', slug: 'shared', config: FALLBACK });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'config_slug_taken');
      await audited('configs.create', 'failed');
      assert.deepEqual(await ok('DELETE', '/configs/shared'), {});
      assert.equal((await db().select().from(configs).where(eq(configs.id, first.id)))[0]!.status, 'archived');
      await audited('configs.delete', 'success', first.id);
      for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['GET', '/versions']] as const) {
        const response = await admin(method, `/configs/${first.id}${suffix}`, method === 'PUT' ? { name: 'y' } : undefined);
        assert.equal(response.status, 404, `${method} ${suffix}`);
        assert.equal(response.body.error.code, 'config_not_found');
      }
      assert.notEqual((await create({ slug: 'shared' })).id, first.id);
    });

    test('update: every PUT writes a new version, newest first in /versions; the config in a version is a JSON string', async () => {
      const created = await create({ name: 'Versioned', workspace_id: A });
      const path = `/configs/${created.id}`;
      const v2 = await ok('PUT', path, { name: 'Renamed' }, keys.managerA.key);
      assert.equal(v2.success, true);
      assert.deepEqual(Object.keys(v2.data), ['version_id']);
      const next = { provider: 'openai', api_key: 'sk-c', request_timeout: 5000 };
      const v3 = await ok('PUT', path, { config: next }, keys.svcA.key);
      assert.notEqual(v2.data.version_id, v3.data.version_id);
      const now = await details(created.slug);
      assert.equal(now.name, 'Renamed');
      assert.deepEqual(now.config, maskConfigSecrets(next));
      assert.equal(now.version_id, v3.data.version_id);
      assert.equal(now.updated_by, keys.svcA.id, 'a service key acts as itself');
      const versions = await ok('GET', `${path}/versions`);
      assert.equal(versions.object, 'list');
      assert.equal(versions.total, 3);
      assert.deepEqual(versions.data.map((row: { version_id: string }) => row.version_id), [v3.data.version_id, v2.data.version_id, created.version_id]);
      const [newest, middle, oldest] = versions.data;
      assert.deepEqual(JSON.parse(newest.config), maskConfigSecrets(next));
      assert.deepEqual(JSON.parse(middle.config), FALLBACK_SHOWN, 'a rename carries the config over');
      assert.equal(middle.name, 'Renamed');
      assert.equal(oldest.name, 'Versioned');
      assert.deepEqual(JSON.parse(oldest.config), FALLBACK_SHOWN);
      for (const row of versions.data) {
        assert.equal(row.object, 'config');
        assert.equal(row.format, 'json');
        assert.equal(row.type, 'WORKSPACE_CONFIG');
        assert.equal(row.id, created.id);
        for (const key of SUMMARY_KEYS) assert.ok(key in row, key);
      }
      const paged = await ok('GET', `${path}/versions?page_size=1&current_page=2`);
      assert.deepEqual(paged.data.map((row: { version_id: string }) => row.version_id), [created.version_id]);
      assert.equal(paged.total, 3);
      await audited('configs.update', 'success', created.id);

      const cases: Array<[unknown, string]> = [
        [{}, 'body'],
        [{ name: '' }, 'name'],
        [{ slug: 'new' }, 'slug'],
        [{ status: 'paused' }, 'status'],
        [{ config: { targets: [{ provider: 'openai' }], strategy: { mode: 'loadbalance' }, retry: { attempts: -1 } } }, 'config.retry.attempts'],
        [{ config: { provider: 'openai', cache: { mode: 'simple', max_age: 0 } } }, 'config.cache.max_age'],
        [{ config: null }, 'config'],
      ];
      for (const [bad, param] of cases) await expectParam('PUT', path, bad, param);
      assert.equal((await ok('GET', `${path}/versions`)).total, 3, 'a refused update writes no version');
      await expectParam('PUT', `/configs/${MISSING}`, { name: 'x' }, null, 404);
      await expectParam('GET', '/configs/no.such', undefined, 'slug');
      await audited('configs.update', 'failed');
    });

    test('a config read back and PUT with its masked credentials keeps the stored ones; a mask with nothing stored is a 400', async () => {
      const created = await create({ name: 'Round trip', workspace_id: A });
      const shown = (await details(created.id)).config;
      assert.equal(shown.targets[0].api_key, '********');
      const edited = { ...shown, targets: [{ ...shown.targets[0], request_timeout: 7000 }, shown.targets[1], { provider: 'openai', api_key: 'sk-new' }] };
      await ok('PUT', `/configs/${created.id}`, { config: edited });
      const version = (await details(created.id)).version_id;
      const [stored] = await db().select().from(configVersions).where(eq(configVersions.id, version));
      const opened = openConfigSecrets(stored!.config as typeof FALLBACK & { targets: Array<{ api_key: string; request_timeout?: number }> }, cipher);
      assert.deepEqual(opened.targets.map((target) => target.api_key), ['sk-a', 'sk-b', 'sk-new'], 'the masks kept the stored keys; the new key is new');
      assert.equal(opened.targets[0]!.request_timeout, 7000, 'the edit landed');
      // the third target had nothing stored at its place before this PUT, and the fourth has nothing now
      const nothingStored = { ...edited, targets: [...edited.targets, { provider: 'anthropic', api_key: '********' }] };
      await expectParam('PUT', `/configs/${created.id}`, { config: nothingStored }, 'config.targets[3].api_key');
    });

    test('PUT status archived archives, as DELETE does', async () => {
      const created = await create({ name: 'Retire me' });
      await ok('PUT', `/configs/${created.slug}`, { status: 'archived' });
      assert.equal((await admin('GET', `/configs/${created.slug}`)).status, 404);
      const versions = await db().select().from(configVersions).where(eq(configVersions.configId, created.id));
      assert.deepEqual(versions.map((row) => row.status).sort(), ['active', 'archived']);
    });

    test('isDefault: one default per workspace; the newest takes it over; organisation-wide configs cannot be one', async () => {
      const first = await create({ name: 'First default', workspace_id: B.id, isDefault: 1 });
      assert.equal((await details(first.id)).is_default, 1);
      assert.equal((await loadDefaultConfig(db(), orgId(), B.id))?.id, first.id);
      const second = await create({ name: 'Second default', workspace_id: B.slug, isDefault: 1 }, keys.svcB.key);
      assert.equal((await details(first.id)).is_default, 0, 'the previous default is unset');
      assert.equal((await details(second.id)).is_default, 1);
      assert.equal((await loadDefaultConfig(db(), orgId(), B.id))?.id, second.id);
      await ok('PUT', `/configs/${first.id}`, { isDefault: 1 });
      assert.deepEqual([(await details(first.id)).is_default, (await details(second.id)).is_default], [1, 0]);
      await ok('DELETE', `/configs/${first.id}`);
      assert.equal(await loadDefaultConfig(db(), orgId(), B.id), undefined, 'an archived config is no default');
      const global = await create({ name: 'Org wide' });
      await expectParam('PUT', `/configs/${global.id}`, { isDefault: 1 }, 'isDefault');
    });

    test('workspace keys: their own workspace, managers only; another workspace is a 404', async () => {
      const bySvc = await create({ name: 'svc' }, keys.svcA.key);
      assert.equal((await details(bySvc.id)).workspace_id, A, 'a workspace key creates in its workspace');
      const byManager = await create({ name: 'mgr', workspace_id: A }, keys.managerA.key);
      assert.equal((await details(byManager.id)).owner_id, (await ok('GET', `/api-keys/${keys.managerA.id}`)).user_id);
      const byMember = await call('POST', '/configs', keys.memberA.key, { name: 'm', config: FALLBACK });
      assert.equal(byMember.status, 403);
      assert.equal(byMember.body.error.code, 'workspace_manager_required');
      await audited('configs.create', 'denied');
      assert.equal((await call('PUT', `/configs/${bySvc.id}`, keys.memberA.key, { name: 'm' })).status, 403);
      assert.equal((await call('DELETE', `/configs/${bySvc.id}`, keys.memberA.key)).status, 403);
      await audited('configs.delete', 'denied');
      assert.equal((await call('GET', `/configs/${bySvc.id}`, keys.memberA.key)).status, 200, 'members read');
      assert.equal((await call('GET', `/configs/${bySvc.id}/versions`, keys.memberA.key)).status, 200, 'members read versions');
      const elsewhere = await call('POST', '/configs', keys.svcA.key, { name: 'x', config: FALLBACK, workspace_id: B.id });
      assert.equal(elsewhere.status, 404);
      for (const [method, suffix, body] of [['GET', ''], ['GET', '/versions'], ['PUT', '', { name: 'x' }], ['DELETE', '']] as const) {
        assert.equal((await call(method, `/configs/${bySvc.slug}${suffix}`, keys.svcB.key, body)).status, 404, `${method} ${suffix} from B`);
      }
      await audited('configs.update', 'failed');
      assert.equal((await details(bySvc.id)).name, 'svc', 'nothing changed');
    });

    test('organisation-wide configs: workspace keys read and list them, only admin keys change them', async () => {
      const global = await create({ name: 'global' });
      assert.equal((await call('GET', `/configs/${global.id}`, keys.svcB.key)).status, 200);
      for (const [method, body] of [['PUT', { name: 'x' }], ['DELETE']] as const) {
        const denied = await call(method, `/configs/${global.id}`, keys.svcA.key, body);
        assert.equal(denied.status, 403, method);
        assert.equal(denied.body.error.code, 'admin_key_required');
      }
      await audited('configs.update', 'denied');
      const listB = await ok('GET', '/configs?page_size=1000', undefined, keys.svcB.key);
      const ids = listB.data.map((row: { id: string }) => row.id);
      assert.ok(ids.includes(global.id), 'B sees organisation-wide configs');
      assert.ok(listB.data.every((row: { workspace_id: string | null }) => row.workspace_id === null || row.workspace_id === B.id));
      assert.equal((await call('GET', `/configs?workspace_id=${A}`, keys.svcB.key)).status, 404);
    });

    test('every route needs its scope: 403 naming it, audited as denied', async () => {
      const unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'none', scopes: ['completions.write'] });
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/configs', { name: 'x', config: FALLBACK }, 'configs.create'],
        ['GET', '/configs', undefined, 'configs.list'],
        ['GET', `/configs/${MISSING}`, undefined, 'configs.read'],
        ['GET', `/configs/${MISSING}/versions`, undefined, 'configs.read'],
        ['PUT', `/configs/${MISSING}`, { name: 'x' }, 'configs.update'],
        ['DELETE', `/configs/${MISSING}`, undefined, 'configs.delete'],
      ];
      for (const [method, path, body, scope] of routes) {
        const response = await call(method, path, unscoped.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.ok(response.body.error.message.includes(scope), response.body.error.message);
        await audited(scope, 'denied');
      }
    });

    test('list: the list envelope of summaries, pages, the workspace filter; bad queries name the parameter', async () => {
      await create({ name: 'in B', workspace_id: B.id });
      const all = await ok('GET', '/configs?page_size=1000');
      assert.equal(all.object, 'list');
      assert.equal(all.total, all.data.length);
      assert.ok(all.total >= 3);
      assert.deepEqual(Object.keys(all.data[0]).sort(), SUMMARY_KEYS, 'summaries carry no config');
      const paged = await ok('GET', '/configs?page_size=1&current_page=1');
      assert.deepEqual(paged.data.map((row: { id: string }) => row.id), [all.data[1].id]);
      assert.equal(paged.total, all.total);
      const inB = await ok('GET', '/configs?workspace_id=team-b');
      assert.ok(inB.total >= 1 && inB.data.every((row: { workspace_id: string }) => row.workspace_id === B.id));
      for (const query of ['page_size=0', 'page_size=1001', 'current_page=-1', 'current_page=x']) {
        await expectParam('GET', `/configs?${query}`, undefined, query.split('=')[0]!);
      }
      await expectParam('GET', `/configs?workspace_id=${MISSING}`, undefined, null, 404);
    });

    test('loadConfig resolves what a workspace may use: its own and organisation-wide, at the current version, never archived', async () => {
      const own = await create({ name: 'own', workspace_id: B.id });
      const global = await create({ name: 'org wide' });
      const loaded = await loadConfig(db(), orgId(), B.id, own.slug);
      assert.equal(loaded?.id, own.id);
      assert.equal(loaded?.versionId, own.version_id);
      assert.deepEqual(openConfigSecrets(loaded?.config, cipher), FALLBACK, 'stored sealed, opened with the key');
      assert.equal(await loadConfig(db(), orgId(), A, own.id), undefined, 'another workspace\'s config');
      assert.equal((await loadConfig(db(), orgId(), A, global.id))?.id, global.id);
      assert.equal(await loadConfig(db(), MISSING, B.id, own.id), undefined, 'another organisation');
      const updated = await ok('PUT', `/configs/${own.id}`, { config: { provider: 'openai' } });
      assert.equal((await loadConfig(db(), orgId(), B.id, own.slug))?.versionId, updated.data.version_id);
      await ok('DELETE', `/configs/${own.id}`);
      assert.equal(await loadConfig(db(), orgId(), B.id, own.slug), undefined, 'archived');
    });
  });
}
