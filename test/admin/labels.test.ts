/** The Labels group over HTTP, on every back-end: universal labels, the name rule, conflicts, grants and denials, audit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { defaultCollection } from '../../src/domain/prompt-collections/default-collection.ts';
import { promptLabels, promptVersions, prompts } from '../../src/storage/schema.ts';
import { testBackends } from '../helpers/databases.ts';
import { MISSING, assertDocumented, audited, startWorld, type World } from './prompt-library-world.ts';

const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `labels.${action}`);
interface Label { id: string; name: string; workspace_id: string | null; is_universal: boolean }

for (const backend of testBackends()) {
  describe(`labels on ${backend.name}`, () => {
    let w: World;
    const db = () => w.gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => w.call(method, path, w.gateway.adminKey, body);
    async function ok(method: string, path: string, body?: unknown, key = w.gateway.adminKey) {
      const response = await w.call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400) {
      const response = await admin(method, path, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }
    const names = (list: { data: Label[] }) => list.data.map((label) => label.name);

    before(async () => {
      w = await startWorld(backend, SCOPES);
    });
    after(async () => {
      await w?.close();
    });

    test('the first list adds the universal labels once; a deleted one is not added back', async () => {
      const [first, second] = await Promise.all([ok('GET', '/labels'), ok('GET', '/labels')]);
      assertDocumented('GET', '/labels', first);
      assert.deepEqual(names(first).sort(), ['development', 'production', 'staging']);
      assert.deepEqual(names(second).sort(), names(first).sort(), 'two first lists racing add them once');
      assert.ok(first.data.every((label: Label) => label.is_universal && label.workspace_id === null));
      assert.deepEqual(names(await ok('GET', '/labels', undefined, w.keys.svcB.key)).sort(), ['development', 'production', 'staging']);
      const staging = first.data.find((label: Label) => label.name === 'staging');
      assert.deepEqual(await ok('DELETE', `/labels/${staging.id}`), {});
      assert.deepEqual(names(await ok('GET', '/labels')).sort(), ['development', 'production']);
      assert.equal((await db().select().from(promptLabels).where(eq(promptLabels.name, 'staging'))).length, 1, 'archived, not re-seeded');
    });

    test('create organisation-wide and workspace labels; read them; audited', async () => {
      const global = await ok('POST', '/labels', { name: 'canary', description: 'a few users', color_code: '#FF5733', organisation_id: w.organisationId });
      assertDocumented('POST', '/labels', global);
      assert.deepEqual(Object.keys(global), ['id']);
      const read = await ok('GET', `/labels/${global.id}`);
      assertDocumented('GET', '/labels/{labelId}', read);
      const { created_at: createdAt, last_updated_at: updatedAt, ...rest } = read;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0);
      assert.deepEqual(rest, {
        id: global.id, name: 'canary', description: 'a few users', color_code: '#FF5733', organisation_id: w.organisationId,
        workspace_id: null, is_universal: true, status: 'active',
      });
      await audited(w, 'labels.create', 'success', global.id);
      const own = await ok('POST', '/labels', { name: 'team-a.v2' }, w.keys.svcA.key);
      const ownRead = await ok('GET', `/labels/${own.id}`, undefined, w.keys.managerA.key);
      assert.equal(ownRead.workspace_id, w.A);
      assert.equal(ownRead.is_universal, false);
      const inB = await ok('POST', '/labels', { name: 'team-b', workspace_id: w.B.slug });
      assert.equal((await ok('GET', `/labels/${inB.id}`)).workspace_id, w.B.id);
      assert.equal((await ok('GET', `/labels/${inB.id}?workspace_id=${w.B.id}&organisation_id=${w.organisationId}`)).id, inB.id);
      await expectParam('GET', `/labels/${inB.id}?workspace_id=${w.A}`, undefined, null, 404);
      assert.equal((await ok('GET', `/labels/${global.id}?workspace_id=${w.A}`)).id, global.id, 'universal labels belong to every workspace');
    });

    test('the name rule: not latest, default or a number; at most one other character, never @ or whitespace', async () => {
      for (const name of ['latest', 'default', '42', '', 'a b', 'a@b', '@', 'a..b', 'x'.repeat(65), 7]) {
        const error = await expectParam('POST', '/labels', { name }, 'name');
        assert.ok(typeof error.message === 'string' && error.message.includes('name'), error.message);
      }
      for (const name of ['Latest', 'v1.2', 'default-2', '42a', 'prod_eu']) {
        const created = await ok('POST', '/labels', { name, workspace_id: w.B.id });
        assert.equal((await ok('GET', `/labels/${created.id}`)).name, name);
      }
      const target = await ok('POST', '/labels', { name: 'renamable', workspace_id: w.B.id });
      await expectParam('PUT', `/labels/${target.id}`, { name: 'latest' }, 'name');
      await audited(w, 'labels.update', 'failed');
    });

    test('a name says one label wherever it is seen: 409 on a clash; a deleted label frees its name', async () => {
      const global = await ok('POST', '/labels', { name: 'shared-name' });
      for (const body of [{ name: 'shared-name' }, { name: 'shared-name', workspace_id: w.A }]) {
        const clash = await admin('POST', '/labels', body);
        assert.equal(clash.status, 409, JSON.stringify(body));
        assert.equal(clash.body.error.code, 'label_name_taken');
      }
      assert.equal((await w.call('POST', '/labels', w.keys.svcA.key, { name: 'production' })).status, 409, 'shadowing a universal label');
      await audited(w, 'labels.create', 'failed');
      const inA = await ok('POST', '/labels', { name: 'per-team', workspace_id: w.A });
      await ok('POST', '/labels', { name: 'per-team', workspace_id: w.B.id });
      assert.equal((await admin('POST', '/labels', { name: 'per-team' })).status, 409, 'a universal name used by a workspace');
      const other = await ok('POST', '/labels', { name: 'other-name', workspace_id: w.A });
      assert.equal((await admin('PUT', `/labels/${other.id}`, { name: 'per-team' })).status, 409);
      assert.deepEqual(await ok('PUT', `/labels/${inA.id}`, { name: 'per-team', description: 'same name is fine' }), {});
      await ok('DELETE', `/labels/${global.id}`);
      await ok('POST', '/labels', { name: 'shared-name', workspace_id: w.A });
    });

    test('update changes name, description and colour; bad bodies name the field', async () => {
      const label = await ok('POST', '/labels', { name: 'before', workspace_id: w.A, description: 'd', color_code: '#fff' });
      assert.deepEqual(await ok('PUT', `/labels/${label.id}`, { name: 'after', description: null, color_code: '#00FF00AA' }, w.keys.managerA.key), {});
      const read = await ok('GET', `/labels/${label.id}`);
      assert.deepEqual([read.name, read.description, read.color_code], ['after', null, '#00FF00AA']);
      await audited(w, 'labels.update', 'success', label.id);
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', '/labels', { name: 'x', color_code: 'red' }, 'color_code'],
        ['POST', '/labels', { name: 'x', color_code: '#12345' }, 'color_code'],
        ['POST', '/labels', { name: 'x', description: 'd'.repeat(1001) }, 'description'],
        ['POST', '/labels', { name: 'x', organisation_id: MISSING }, 'organisation_id'],
        ['POST', '/labels', { name: 'x', organisation_id: 'nope' }, 'organisation_id'],
        ['POST', '/labels', { name: 'x', workspace_id: 'bad slug' }, 'workspace_id'],
        ['POST', '/labels', { name: 'x', is_universal: true }, 'is_universal'],
        ['PUT', `/labels/${label.id}`, { workspace_id: w.B.id }, 'workspace_id'],
        ['PUT', `/labels/${label.id}`, { color_code: 5 }, 'color_code'],
        ['GET', '/labels/not-a-uuid', undefined, 'labelId'],
        ['GET', `/labels?organisation_id=${MISSING}`, undefined, 'organisation_id'],
        ['GET', '/labels?page_size=0', undefined, 'page_size'],
      ];
      for (const [method, path, body, param] of cases) await expectParam(method, path, body, param);
      await expectParam('POST', '/labels', { name: 'x', workspace_id: MISSING }, null, 404);
      await expectParam('PUT', `/labels/${MISSING}`, { name: 'x' }, null, 404);
      await expectParam('GET', `/labels?workspace_id=${MISSING}`, undefined, null, 404);
      assert.equal((await db().select().from(promptLabels).where(eq(promptLabels.name, 'x'))).length, 0, 'a refused create writes nothing');
    });

    test('roles: workspace managers their workspace\'s labels, admin keys the universal ones; another workspace is a 404', async () => {
      const global = await ok('POST', '/labels', { name: 'admins-only' });
      for (const [method, body] of [['PUT', { name: 'renamed' }], ['DELETE']] as const) {
        const denied = await w.call(method, `/labels/${global.id}`, w.keys.svcA.key, body);
        assert.equal(denied.status, 403, method);
        assert.equal(denied.body.error.code, 'admin_key_required');
      }
      await audited(w, 'labels.delete', 'denied');
      assert.equal((await w.call('POST', '/labels', w.keys.memberA.key, { name: 'by-member' })).status, 403);
      const inA = await ok('POST', '/labels', { name: 'of-a' }, w.keys.managerA.key);
      assert.equal((await w.call('PUT', `/labels/${inA.id}`, w.keys.memberA.key, { name: 'm' })).status, 403);
      assert.equal((await w.call('GET', `/labels/${inA.id}`, w.keys.memberA.key)).status, 200, 'members read');
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        assert.equal((await w.call(method, `/labels/${inA.id}`, w.keys.svcB.key, body)).status, 404, `${method} from B`);
      }
      assert.equal((await w.call('POST', '/labels', w.keys.svcA.key, { name: 'into-b', workspace_id: w.B.id })).status, 404);
      const listB = await ok('GET', '/labels?page_size=1000', undefined, w.keys.svcB.key);
      assert.ok(listB.data.some((label: Label) => label.id === global.id));
      assert.ok(listB.data.every((label: Label) => label.workspace_id === null || label.workspace_id === w.B.id));
      assert.equal((await w.call('GET', `/labels?workspace_id=${w.A}`, w.keys.svcB.key)).status, 404);
      const all = await ok('GET', '/labels?page_size=1000&search=of-');
      assert.deepEqual(names(all), ['of-a']);
    });

    test('deleting a label takes it off the prompt versions it marked', async () => {
      const label = await ok('POST', '/labels', { name: 'marks', workspace_id: w.A });
      const collection = await defaultCollection(db(), { organisationId: w.organisationId, workspaceId: w.A, createdBy: 'test' });
      const [prompt] = await db().insert(prompts).values({ organisationId: w.organisationId, workspaceId: w.A, collectionId: collection.id, slug: 'labelled', name: 'p', createdBy: 'test' }).returning();
      const [version] = await db().insert(promptVersions).values({ promptId: prompt!.id, version: 1, template: 'hi', labelId: label.id, createdBy: 'test' }).returning();
      assert.deepEqual(await ok('DELETE', `/labels/${label.id}`), {});
      await audited(w, 'labels.delete', 'success', label.id);
      assert.equal((await db().select().from(promptVersions).where(eq(promptVersions.id, version!.id)))[0]!.labelId, null);
      assert.equal((await admin('GET', `/labels/${label.id}`)).status, 404);
    });

    test('every route needs its scope: 403 naming it, audited as denied', async () => {
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/labels', { name: 'x' }, 'labels.create'],
        ['GET', '/labels', undefined, 'labels.list'],
        ['GET', `/labels/${MISSING}`, undefined, 'labels.read'],
        ['PUT', `/labels/${MISSING}`, { name: 'x' }, 'labels.update'],
        ['DELETE', `/labels/${MISSING}`, undefined, 'labels.delete'],
      ];
      for (const [method, path, body, scope] of routes) {
        const response = await w.call(method, path, w.keys.unscoped.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.ok(response.body.error.message.includes(scope), response.body.error.message);
        await audited(w, scope, 'denied');
      }
    });
  });
}
