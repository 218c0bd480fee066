/** The PromptPartials group over HTTP, on every back-end: versions and the default, loadPartialTemplates, grants and denials, audit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { loadPartialTemplates } from '../../src/domain/prompt-partials/load-partials.ts';
import { promptPartials, promptPartialVersions } from '../../src/storage/schema.ts';
import { testBackends } from '../helpers/databases.ts';
import { MISSING, assertDocumented, audited, startWorld, type World } from './prompt-library-world.ts';

const SCOPES = [...['create', 'read', 'update', 'delete', 'list'].map((action) => `prompt_partials.${action}`), 'collections.create'];
const BASE = '/prompts/partials';

for (const backend of testBackends()) {
  describe(`prompt partials on ${backend.name}`, () => {
    let w: World;
    const db = () => w.gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => w.call(method, path, w.gateway.adminKey, body);
    async function ok(method: string, path: string, body?: unknown, key = w.gateway.adminKey) {
      const response = await w.call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const create = (body: Record<string, unknown>, key?: string) => ok('POST', BASE, { name: 'Snippet', string: 'Be brief, {{name}}.', workspace_id: w.A, ...body }, key);
    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400) {
      const response = await admin(method, path, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }

    before(async () => {
      w = await startWorld(backend, SCOPES);
    });
    after(async () => {
      await w?.close();
    });

    test('create makes version 1, the default; read by slug and id; audited', async () => {
      const created = await create({ name: 'System rules', version_description: 'first cut' });
      assertDocumented('POST', BASE, created);
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug', 'version_id']);
      assert.match(created.slug, /^partial-system-rules-[0-9a-f]{6}$/);
      const read = await ok('GET', `${BASE}/${created.slug}`);
      assertDocumented('GET', `${BASE}/{promptPartialId}`, read);
      const { created_at: createdAt, last_updated_at: updatedAt, ...rest } = read;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
      assert.deepEqual(rest, {
        id: created.id, slug: created.slug, name: 'System rules', collection_id: null, workspace_id: w.A, string: 'Be brief, {{name}}.',
        version: 1, version_description: 'first cut', prompt_partial_version_id: created.version_id, status: 'active',
      });
      assert.equal((await ok('GET', `${BASE}/${created.id}`)).slug, created.slug);
      await audited(w, 'prompt_partials.create', 'success', created.id);
      const bySvc = await ok('POST', BASE, { name: 'mine', string: 'x', slug: 'my_rules' }, w.keys.svcA.key);
      assert.equal(bySvc.slug, 'my_rules');
      assert.equal((await ok('GET', `${BASE}/my_rules`, undefined, w.keys.memberA.key)).workspace_id, w.A);
    });

    test('a new string is a new version; only makeDefault moves the default; name and description make none', async () => {
      const created = await create({ name: 'Versioned', string: 'v1' });
      const path = `${BASE}/${created.id}`;
      const second = await ok('PUT', path, { string: 'v2', description: 'second' }, w.keys.managerA.key);
      assertDocumented('PUT', `${BASE}/{promptPartialId}`, second);
      const third = await ok('PUT', path, { string: 'v3 {{> nested}}' });
      assert.notEqual(second.prompt_partial_version_id, third.prompt_partial_version_id);
      assert.equal((await ok('GET', path)).string, 'v1', 'the default stays until makeDefault');
      const versions = await ok('GET', `${path}/versions`);
      assertDocumented('GET', `${BASE}/{promptPartialId}/versions`, versions);
      assert.ok(Array.isArray(versions), 'a bare array');
      assert.deepEqual(versions.map((version: { version: string }) => version.version), ['3', '2', '1']);
      assert.deepEqual(versions.map((version: { string: string }) => version.string), ['v3 {{> nested}}', 'v2', 'v1']);
      assert.deepEqual(versions.map((version: { is_default: boolean }) => version.is_default), [false, false, true]);
      assert.equal(versions[1].prompt_partial_version_id, second.prompt_partial_version_id);
      assert.equal(versions[1].description, 'second');
      assert.deepEqual(await ok('PUT', `${path}/makeDefault`, { version: 2 }), {});
      await audited(w, 'prompt_partials.make_default', 'success', created.id);
      const read = await ok('GET', path);
      assert.deepEqual([read.string, read.version, read.prompt_partial_version_id], ['v2', 2, second.prompt_partial_version_id]);
      // name and description: no version
      const renamed = await ok('PUT', path, { name: 'Renamed', description: 'described again' });
      assert.equal(renamed.prompt_partial_version_id, second.prompt_partial_version_id);
      const after = await ok('GET', path);
      assert.deepEqual([after.name, after.version_description, after.version], ['Renamed', 'described again', 2]);
      assert.equal((await ok('GET', `${path}/versions`)).length, 3);
      const missing = await expectParam('PUT', `${path}/makeDefault`, { version: 9 }, 'version');
      assert.equal(missing.code, 'prompt_partial_version_not_found');
      await audited(w, 'prompt_partials.make_default', 'failed');
      await audited(w, 'prompt_partials.update', 'success', created.id);
    });

    test('concurrent updates number their versions one after the other', async () => {
      const created = await create({ name: 'Busy', string: 'v1' });
      const results = await Promise.all(Array.from({ length: 5 }, (_, index) => admin('PUT', `${BASE}/${created.id}`, { string: `edit ${index}` })));
      assert.deepEqual(results.map((result) => result.status), [200, 200, 200, 200, 200]);
      const rows = await db().select().from(promptPartialVersions).where(eq(promptPartialVersions.partialId, created.id));
      assert.deepEqual(rows.map((row) => row.version).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6]);
    });

    test('loadPartialTemplates: the default version of the workspace\'s active partials, by slug', async () => {
      const first = await create({ name: 'Loaded', string: 'one', slug: 'loaded' });
      await ok('PUT', `${BASE}/${first.id}`, { string: 'two' });
      await ok('PUT', `${BASE}/${first.id}/makeDefault`, { version: 2 });
      const other = await create({ name: 'Other', string: 'other', slug: 'other', workspace_id: w.B.id });
      const loaded = await loadPartialTemplates(db(), w.A, ['loaded', 'other', 'nowhere', 'loaded']);
      assert.deepEqual([...loaded.entries()], [['loaded', 'two']]);
      assert.deepEqual([...(await loadPartialTemplates(db(), w.B.id, ['other'])).entries()], [['other', 'other']]);
      assert.equal((await loadPartialTemplates(db(), w.A, [])).size, 0);
      assert.deepEqual(await ok('DELETE', `${BASE}/${other.id}`), {});
      assert.equal((await loadPartialTemplates(db(), w.B.id, ['other'])).size, 0, 'archived');
      await ok('PUT', `${BASE}/${first.id}`, { status: 'archived' });
      assert.equal((await loadPartialTemplates(db(), w.A, ['loaded'])).size, 0, 'archived by status');
      assert.equal((await admin('GET', `${BASE}/${first.id}`)).status, 404);
    });

    test('slugs: a taken one is a 409 in its workspace, free elsewhere, and freed by delete', async () => {
      const first = await create({ slug: 'greeting' });
      const again = await admin('POST', BASE, { name: 'x', string: 'x', workspace_id: w.A, slug: 'greeting' });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'prompt_partial_slug_taken');
      await audited(w, 'prompt_partials.create', 'failed');
      await create({ slug: 'greeting', workspace_id: w.B.slug });
      await ok('DELETE', `${BASE}/${first.id}`);
      await audited(w, 'prompt_partials.delete', 'success', first.id);
      assert.equal((await db().select().from(promptPartials).where(eq(promptPartials.id, first.id)))[0]!.status, 'archived');
      assert.notEqual((await create({ slug: 'greeting' })).id, first.id);
      for (const [method, suffix, body] of [['GET', ''], ['PUT', '', { name: 'y' }], ['DELETE', ''], ['GET', '/versions'], ['PUT', '/makeDefault', { version: 1 }]] as const) {
        assert.equal((await admin(method, `${BASE}/${first.id}${suffix}`, body)).status, 404, `${method} ${suffix}`);
      }
    });

    test('list: a bare array, filtered by collection; a workspace key sees its own', async () => {
      const collection = await ok('POST', '/collections', { name: 'Snippets', workspace_id: w.A });
      const inCollection = await create({ name: 'Filed', collection_id: collection.slug });
      const all = await ok('GET', BASE);
      assertDocumented('GET', BASE, all);
      assert.ok(Array.isArray(all) && all.some((row: { id: string }) => row.id === inCollection.id));
      assert.ok(all.some((row: { workspace_id: string }) => row.workspace_id === w.B.id), 'an admin key sees every workspace');
      const filed = await ok('GET', `${BASE}?collection_id=${collection.id}`);
      assert.deepEqual(filed.map((row: { id: string }) => row.id), [inCollection.id]);
      assert.equal(filed[0].object, 'partial');
      assert.equal(filed[0].collection_id, collection.id);
      assert.deepEqual((await ok('GET', `${BASE}?collection_id=${collection.slug}`, undefined, w.keys.svcA.key)).length, 1);
      const own = await ok('GET', BASE, undefined, w.keys.svcB.key);
      assert.ok(own.length > 0 && own.every((row: { workspace_id: string }) => row.workspace_id === w.B.id));
      assert.equal((await w.call('GET', `${BASE}?collection_id=${collection.id}`, w.keys.svcB.key)).status, 400);
      assert.equal((await w.call('GET', `${BASE}?workspace_id=${w.A}`, w.keys.svcB.key)).status, 404);
      const inB = await ok('GET', `${BASE}?workspace_id=${w.B.slug}`);
      assert.ok(inB.every((row: { workspace_id: string }) => row.workspace_id === w.B.id));
    });

    test('bad bodies and parameters are 400s naming the field, and write nothing', async () => {
      const valid = { name: 'bad', string: 'x', workspace_id: w.A };
      const cases: Array<[unknown, string]> = [
        [{ string: 'x', workspace_id: w.A }, 'name'],
        [{ name: 'bad', workspace_id: w.A }, 'string'],
        [{ ...valid, string: '' }, 'string'],
        [{ ...valid, string: '{{#open}} never closed' }, 'string'],
        [{ ...valid, string: 'hello {{name' }, 'string'],
        [{ ...valid, slug: 'has space' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, collection_id: MISSING }, 'collection_id'],
        [{ ...valid, version_description: 5 }, 'version_description'],
        [{ ...valid, extra: 1 }, 'extra'],
        [{ name: 'bad', string: 'x' }, 'workspace_id'],
      ];
      for (const [body, param] of cases) await expectParam('POST', BASE, body, param);
      assert.equal((await expectParam('POST', BASE, cases[3]![0], 'string')).code, 'invalid_prompt_template');
      await expectParam('POST', BASE, { ...valid, workspace_id: MISSING }, null, 404);
      assert.equal((await db().select().from(promptPartials).where(eq(promptPartials.name, 'bad'))).length, 0);
      const target = await create({ name: 'Target' });
      const path = `${BASE}/${target.id}`;
      for (const [body, param] of [[{ string: '{{/closing}}' }, 'string'], [{ status: 'deleted' }, 'status'], [{ name: '' }, 'name'], [{ slug: 'x' }, 'slug']] as const) {
        await expectParam('PUT', path, body, param);
      }
      for (const body of [{}, { version: 0 }, { version: '1' }, { version: 1.5 }, { version: 1, extra: true }]) {
        const error = await expectParam('PUT', `${path}/makeDefault`, body, Object.keys(body).includes('extra') ? 'extra' : 'version');
        assert.ok(error.message.length > 0);
      }
      assert.equal((await ok('GET', `${path}/versions`)).length, 1, 'refused updates add no version');
      await expectParam('GET', `${BASE}/no.such`, undefined, 'promptPartialId');
      await expectParam('GET', `${BASE}/${MISSING}`, undefined, null, 404);
      await expectParam('GET', `${BASE}?collection_id=nowhere`, undefined, 'collection_id');
    });

    test('roles: managers change, members read, another workspace is a 404', async () => {
      const mine = await create({ name: 'Guarded' });
      const denied = await w.call('POST', BASE, w.keys.memberA.key, { name: 'm', string: 'm' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'workspace_manager_required');
      await audited(w, 'prompt_partials.create', 'denied');
      for (const [method, suffix, body] of [['PUT', '', { string: 'm' }], ['DELETE', ''], ['PUT', '/makeDefault', { version: 1 }]] as const) {
        assert.equal((await w.call(method, `${BASE}/${mine.id}${suffix}`, w.keys.memberA.key, body)).status, 403, `${method} ${suffix}`);
      }
      assert.equal((await w.call('GET', `${BASE}/${mine.id}/versions`, w.keys.memberA.key)).status, 200, 'members read');
      assert.equal((await w.call('POST', BASE, w.keys.svcA.key, { name: 'x', string: 'x', workspace_id: w.B.id })).status, 404);
      for (const [method, suffix, body] of [['GET', ''], ['PUT', '', { name: 'x' }], ['DELETE', ''], ['GET', '/versions'], ['PUT', '/makeDefault', { version: 1 }]] as const) {
        assert.equal((await w.call(method, `${BASE}/${mine.slug}${suffix}`, w.keys.svcB.key, body)).status, 404, `${method} ${suffix} from B`);
      }
      assert.equal((await ok('GET', `${BASE}/${mine.id}/versions`)).length, 1, 'nothing changed');
    });

    test('every route needs its scope: 403 naming it, audited as denied', async () => {
      const routes: Array<[string, string, unknown, string, string]> = [
        ['POST', BASE, { name: 'x', string: 'x', workspace_id: w.A }, 'prompt_partials.create', 'prompt_partials.create'],
        ['GET', BASE, undefined, 'prompt_partials.list', 'prompt_partials.list'],
        ['GET', `${BASE}/${MISSING}`, undefined, 'prompt_partials.read', 'prompt_partials.read'],
        ['PUT', `${BASE}/${MISSING}`, { name: 'x' }, 'prompt_partials.update', 'prompt_partials.update'],
        ['DELETE', `${BASE}/${MISSING}`, undefined, 'prompt_partials.delete', 'prompt_partials.delete'],
        ['GET', `${BASE}/${MISSING}/versions`, undefined, 'prompt_partials.read', 'prompt_partials.read'],
        ['PUT', `${BASE}/${MISSING}/makeDefault`, { version: 1 }, 'prompt_partials.update', 'prompt_partials.make_default'],
      ];
      for (const [method, path, body, scope, action] of routes) {
        const response = await w.call(method, path, w.keys.unscoped.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.ok(response.body.error.message.includes(scope), response.body.error.message);
        await audited(w, action, 'denied');
      }
    });
  });
}
