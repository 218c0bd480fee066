/**
 * The Prompts group over HTTP, on every back-end: create, list, get, update (versions), delete, versions, get
 * version, label moves and makeDefault; grants and denials (scopes, roles, workspaces), validation, audit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLogs, promptLabels, prompts, promptVersions, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list', 'publish'].map((action) => `prompts.${action}`);
const TEMPLATE = JSON.stringify([{ role: 'system', content: 'You help {{company}}.' }, { role: 'user', content: '{{question}}' }]);

for (const backend of testBackends()) {
  describe(`prompts on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA' | 'noPublish', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });
    const create = (body: Record<string, unknown> = {}, key?: string) =>
      ok('POST', '/prompts', { name: 'Support', string: TEMPLATE, parameters: { temperature: 0.2 }, model: 'gpt-4o-mini', virtual_key: '@openai-prod', ...body }, key);

    async function member(workspaceId: string, email: string, role: string) {
      const [row] = await db().insert(users).values({ organisationId: gateway.gateway.bootstrap.organisation.id, email, role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
      return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
    }

    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    async function expectError(method: string, path: string, body: unknown, status: number, param: string | null, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }

    async function label(name: string, workspaceId: string | null) {
      const [row] = await db().insert(promptLabels).values({ organisationId: gateway.gateway.bootstrap.organisation.id, workspaceId, name, isUniversal: workspaceId === null, createdBy: 'test' }).returning();
      return row!.id;
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
      keys.noPublish = await createKey('workspace/service', { workspace_id: A, scopes: SCOPES.filter((scope) => scope !== 'prompts.publish') });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('create: version 1 in the default collection, read back by id and slug, audited', async () => {
      const created = await create();
      assert.deepEqual(Object.keys(created).sort(), ['id', 'object', 'slug', 'version_id']);
      assert.match(created.slug, /^pp-support-[0-9a-f]{6}$/);
      const prompt = await ok('GET', `/prompts/${created.slug}`);
      assert.equal(prompt.id, created.id);
      assert.equal(prompt.workspace_id, A);
      assert.equal(prompt.string, TEMPLATE);
      assert.deepEqual(prompt.parameters, { temperature: 0.2 });
      assert.equal(prompt.prompt_version, 1);
      assert.equal(prompt.prompt_version_id, created.version_id);
      assert.equal(prompt.default_version, 1);
      assert.equal(prompt.virtual_key, '@openai-prod');
      assert.equal(prompt.model, 'gpt-4o-mini');
      assert.equal(prompt.is_raw_template, false);
      assert.equal(prompt.object, 'prompt');
      assert.equal((await ok('GET', `/prompts/${created.id}`)).slug, created.slug);
      const collection = await ok('GET', `/collections/${prompt.collection_id}`);
      assert.equal(collection.is_default, true, 'the workspace\'s default collection');
      await audited('prompts.create', 'success', created.id);
      // the seed-wins rule: only name and string are needed
      const minimal = await ok('POST', '/prompts', { name: 'Bare', string: 'Hello {{name}}' });
      const bare = await ok('GET', `/prompts/${minimal.id}`);
      assert.deepEqual([bare.parameters, bare.virtual_key, bare.model], [{}, null, null]);
    });

    test('bad bodies are 400s naming the field and write nothing', async () => {
      const valid = { name: 'bad-one', string: TEMPLATE };
      const cases: Array<[unknown, string]> = [
        [{ string: TEMPLATE }, 'name'],
        [{ name: 'bad-one' }, 'string'],
        [{ ...valid, string: '' }, 'string'],
        [{ ...valid, string: '[{"role": "user"' }, 'string'],
        [{ ...valid, string: '[]' }, 'string'],
        [{ ...valid, string: JSON.stringify([{ role: 'user', content: 5 }]) }, 'string[0].content'],
        [{ ...valid, string: JSON.stringify([{ role: 'user', content: 'Hi {{#open}}' }]) }, 'string[0].content'],
        [{ ...valid, string: 'plain {{/never-opened}}' }, 'string'],
        [{ ...valid, parameters: { messages: [] } }, 'parameters.messages'],
        [{ ...valid, parameters: 'hot' }, 'parameters'],
        [{ ...valid, virtual_key: 'not a slug' }, 'virtual_key'],
        [{ ...valid, tools: {} }, 'tools'],
        [{ ...valid, is_raw_template: 2 }, 'is_raw_template'],
        [{ ...valid, slug: 'has space' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, surprise: true }, 'surprise'],
      ];
      for (const [body, param] of cases) await expectError('POST', '/prompts', body, 400, param);
      await expectError('POST', '/prompts', { ...valid, collection_id: 'nope' }, 404, null);
      await expectError('POST', '/prompts', { ...valid, collection_id: MISSING }, 404, null);
      assert.equal((await db().select().from(prompts).where(eq(prompts.name, 'bad-one'))).length, 0);
      await audited('prompts.create', 'failed');
      const taken = await create({ slug: 'taken-slug' });
      const again = await admin('POST', '/prompts', { ...valid, slug: 'taken-slug' });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'prompt_slug_taken');
      assert.equal((await ok('GET', '/prompts/taken-slug')).id, taken.id);
    });

    test('update: in-place fields make no version; content changes do; patch copies the latest; versions list bare', async () => {
      const created = await create();
      const renamed = await ok('PUT', `/prompts/${created.id}`, { name: 'Renamed', virtual_key: 'openai-dev', version_description: 'first' });
      assert.deepEqual(renamed, { id: created.id, slug: created.slug, prompt_version_id: created.version_id });
      const two = await ok('PUT', `/prompts/${created.id}`, { string: 'Hello {{name}}', parameters: { max_tokens: 10 }, model: 'gpt-4o' });
      assert.notEqual(two.prompt_version_id, created.version_id);
      let prompt = await ok('GET', `/prompts/${created.id}`);
      assert.deepEqual([prompt.name, prompt.virtual_key, prompt.prompt_version, prompt.prompt_version_description], ['Renamed', 'openai-dev', 1, 'first'], 'a new version is not the default until published');
      const three = await ok('PUT', `/prompts/${created.id}`, { patch: true, parameters: { max_tokens: 20 } });
      const same = await ok('PUT', `/prompts/${created.id}`, { patch: true, parameters: { max_tokens: 20 } });
      assert.equal(same.prompt_version_id, three.prompt_version_id, 'the same content makes no version');
      await expectError('PUT', `/prompts/${created.id}`, { parameters: { max_tokens: 1 } }, 400, 'string');
      await expectError('PUT', `/prompts/${created.id}`, { string: '{{#x}}' }, 400, 'string');
      await expectError('PUT', `/prompts/${created.id}`, { collection_id: MISSING }, 404, null);
      const versions = await ok('GET', `/prompts/${created.id}/versions`);
      assert.ok(Array.isArray(versions), 'a bare array');
      assert.deepEqual(versions.map((version: { prompt_version: number }) => version.prompt_version), [3, 2, 1]);
      assert.deepEqual(versions[0].prompt_template.parameters, { max_tokens: 20 });
      assert.equal(versions[0].prompt_template.string, 'Hello {{name}}', 'patch copied the template');
      assert.equal(versions[0].prompt_template.model, 'gpt-4o');
      const atTwo = await ok('GET', `/prompts/${created.slug}/versions/${two.prompt_version_id}`);
      assert.deepEqual([atTwo.prompt_version, atTwo.string, atTwo.model], [2, 'Hello {{name}}', 'gpt-4o']);
      await expectError('GET', `/prompts/${created.id}/versions/${MISSING}`, undefined, 404, null);
      await expectError('GET', `/prompts/${created.id}/versions/not-a-uuid`, undefined, 400, 'versionId');
      assert.deepEqual(await ok('PUT', `/prompts/${created.id}/makeDefault`, { version: 2 }), {});
      prompt = await ok('GET', `/prompts/${created.id}`);
      assert.deepEqual([prompt.prompt_version, prompt.default_version, prompt.string], [2, 2, 'Hello {{name}}']);
      await expectError('PUT', `/prompts/${created.id}/makeDefault`, { version: 9 }, 404, null);
      await expectError('PUT', `/prompts/${created.id}/makeDefault`, { version: 0 }, 400, 'version');
      await expectError('PUT', `/prompts/${created.id}/makeDefault`, {}, 400, 'version');
      await audited('prompts.update', 'success', created.id);
      await audited('prompts.publish', 'success', created.id);
    });

    test('a label moves between versions atomically; only usable labels; null takes it off', async () => {
      const created = await create();
      const two = await ok('PUT', `/prompts/${created.id}`, { patch: true, model: 'gpt-4o' });
      const production = await label('production', A);
      const universal = await label('universal', null);
      const elsewhere = await label('theirs', B.id);
      const labelOf = async (versionId: string) => (await db().select().from(promptVersions).where(eq(promptVersions.id, versionId)))[0]!.labelId;
      assert.deepEqual(await ok('PUT', `/prompts/${created.id}/versions/${created.version_id}`, { label_id: production }), {});
      assert.equal(await labelOf(created.version_id), production);
      await ok('PUT', `/prompts/${created.id}/versions/${two.prompt_version_id}`, { label_id: production });
      assert.deepEqual([await labelOf(created.version_id), await labelOf(two.prompt_version_id)], [null, production], 'the label left version 1');
      assert.equal((await ok('GET', `/prompts/${created.id}/versions/${two.prompt_version_id}`)).prompt_version_label_id, production);
      await ok('PUT', `/prompts/${created.id}/versions/${created.version_id}`, { label_id: universal });
      assert.equal(await labelOf(created.version_id), universal);
      await expectError('PUT', `/prompts/${created.id}/versions/${created.version_id}`, { label_id: elsewhere }, 404, null);
      await expectError('PUT', `/prompts/${created.id}/versions/${created.version_id}`, { label_id: MISSING }, 404, null);
      await expectError('PUT', `/prompts/${created.id}/versions/${MISSING}`, { label_id: production }, 404, null);
      await expectError('PUT', `/prompts/${created.id}/versions/${created.version_id}`, { label_id: 'production' }, 400, 'label_id');
      await ok('PUT', `/prompts/${created.id}/versions/${two.prompt_version_id}`, { label_id: null });
      assert.equal(await labelOf(two.prompt_version_id), null);
    });

    test('delete archives: {} then 404 everywhere, and the slug is free again', async () => {
      const created = await create({ slug: 'short-lived' });
      assert.deepEqual(await ok('DELETE', '/prompts/short-lived'), {});
      assert.equal((await db().select().from(prompts).where(eq(prompts.id, created.id)))[0]!.status, 'archived');
      await audited('prompts.delete', 'success', created.id);
      for (const [method, path, body] of [
        ['GET', '/prompts/short-lived'], ['PUT', `/prompts/${created.id}`, { name: 'x' }], ['DELETE', `/prompts/${created.id}`],
        ['GET', `/prompts/${created.id}/versions`], ['PUT', `/prompts/${created.id}/makeDefault`, { version: 1 }],
      ] as const) {
        assert.equal((await admin(method, path, body)).status, 404, `${method} ${path}`);
      }
      assert.notEqual((await create({ slug: 'short-lived' })).id, created.id);
    });

    test('workspaces and roles: managers change, members read, another workspace is a 404', async () => {
      const bySvc = await create({ name: 'svc' }, keys.svcA.key);
      assert.equal((await ok('GET', `/prompts/${bySvc.id}`)).workspace_id, A);
      const byManager = await create({ name: 'mgr' }, keys.managerA.key);
      assert.ok(byManager.id);
      const denied = await call('POST', '/prompts', keys.memberA.key, { name: 'm', string: 'x' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'workspace_manager_required');
      await audited('prompts.create', 'denied');
      assert.equal((await call('PUT', `/prompts/${bySvc.id}`, keys.memberA.key, { name: 'm' })).status, 403);
      assert.equal((await call('GET', `/prompts/${bySvc.id}`, keys.memberA.key)).status, 200, 'members read');
      for (const [method, path, body] of [['GET', `/prompts/${bySvc.slug}`], ['PUT', `/prompts/${bySvc.id}`, { name: 'x' }], ['DELETE', `/prompts/${bySvc.id}`], ['GET', `/prompts/${bySvc.id}/versions`]] as const) {
        assert.equal((await call(method, path, keys.svcB.key, body)).status, 404, `${method} ${path} from B`);
      }
      assert.equal((await call('POST', '/prompts', keys.svcA.key, { name: 'x', string: 'x', workspace_id: B.id })).status, 404);
      const inB = await create({ name: 'in B', workspace_id: 'team-b' });
      assert.equal((await ok('GET', `/prompts/${inB.id}`)).workspace_id, B.id, 'an admin key creates in a named workspace');
      const listB = await ok('GET', '/prompts', undefined, keys.svcB.key);
      assert.deepEqual(listB.data.map((row: { id: string }) => row.id), [inB.id], 'B lists only its own');
    });

    test('every route needs its scope: 403 naming it, audited as denied; publishing needs prompts.publish', async () => {
      const unscoped = await ok('POST', '/api-keys/organisation/service', { name: 'none', scopes: ['completions.write'] });
      const id = (await create()).id;
      const version = (await ok('GET', `/prompts/${id}`)).prompt_version_id;
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/prompts', { name: 'x', string: 'x' }, 'prompts.create'],
        ['GET', '/prompts', undefined, 'prompts.list'],
        ['GET', `/prompts/${id}`, undefined, 'prompts.read'],
        ['PUT', `/prompts/${id}`, { name: 'x' }, 'prompts.update'],
        ['DELETE', `/prompts/${id}`, undefined, 'prompts.delete'],
        ['GET', `/prompts/${id}/versions`, undefined, 'prompts.read'],
        ['GET', `/prompts/${id}/versions/${version}`, undefined, 'prompts.read'],
        ['PUT', `/prompts/${id}/versions/${version}`, { label_id: null }, 'prompts.publish'],
        ['PUT', `/prompts/${id}/makeDefault`, { version: 1 }, 'prompts.publish'],
      ];
      for (const [method, path, body, scope] of routes) {
        const response = await call(method, path, unscoped.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.ok(response.body.error.message.includes(scope), response.body.error.message);
      }
      await audited('prompts.publish', 'denied');
      for (const [method, path, body] of [[`/prompts/${id}/makeDefault`, { version: 1 }], [`/prompts/${id}/versions/${version}`, { label_id: null }]].map(([path, body]) => ['PUT', path, body] as const)) {
        const response = await call(method, path as string, keys.noPublish.key, body);
        assert.equal(response.status, 403, `${path} without prompts.publish`);
        assert.ok(response.body.error.message.includes('prompts.publish'));
      }
      assert.equal((await call('PUT', `/prompts/${id}`, keys.noPublish.key, { name: 'still updatable' })).status, 200);
    });

    test('list: envelope, pages, collection, search and workspace filters; bad queries name the parameter', async () => {
      const first = await create({ name: 'Listed alpha' });
      await create({ name: 'Listed beta' });
      const all = await ok('GET', '/prompts?page_size=1000&search=listed');
      assert.equal(all.object, 'list');
      assert.deepEqual(all.data.map((row: { name: string }) => row.name), ['Listed alpha', 'Listed beta']);
      assert.equal(all.total, 2);
      const row = all.data[0];
      assert.deepEqual(Object.keys(row).sort(), ['collection_id', 'created_at', 'id', 'last_updated_at', 'model', 'name', 'object', 'slug', 'status', 'workspace_id']);
      assert.equal(row.model, 'gpt-4o-mini');
      const page = await ok('GET', '/prompts?search=LISTED&page_size=1&current_page=1');
      assert.deepEqual([page.total, page.data.length, page.data[0].name], [2, 1, 'Listed beta']);
      const byCollection = await ok('GET', `/prompts?page_size=1000&collection_id=${(await ok('GET', `/prompts/${first.id}`)).collection_id}`);
      assert.ok(byCollection.data.some((entry: { id: string }) => entry.id === first.id));
      assert.equal((await ok('GET', `/prompts?workspace_id=${B.id}&search=listed`)).total, 0);
      await expectError('GET', '/prompts?page_size=0', undefined, 400, 'page_size');
      await expectError('GET', '/prompts?collection_id=missing-one', undefined, 404, null);
      await expectError('GET', `/prompts?workspace_id=${A}`, undefined, 404, null, keys.svcB.key);
    });
  });
}
