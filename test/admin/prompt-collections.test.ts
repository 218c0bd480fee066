/** The Collections group over HTTP, on every back-end: the default collection, nesting, grants and denials, validation, audit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { defaultCollection, findCollection } from '../../src/domain/prompt-collections/default-collection.ts';
import { promptCollections, prompts } from '../../src/storage/schema.ts';
import { testBackends } from '../helpers/databases.ts';
import { MISSING, assertDocumented, audited, startWorld, type World } from './prompt-library-world.ts';

const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `collections.${action}`);

for (const backend of testBackends()) {
  describe(`prompt collections on ${backend.name}`, () => {
    let w: World;
    const db = () => w.gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => w.call(method, path, w.gateway.adminKey, body);
    async function ok(method: string, path: string, body?: unknown, key = w.gateway.adminKey) {
      const response = await w.call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const create = (body: Record<string, unknown>, key?: string) => ok('POST', '/collections', { name: 'Folder', workspace_id: w.A, ...body }, key);
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

    test('defaultCollection makes one default per workspace, even when first uses race', async () => {
      const scope = { organisationId: w.organisationId, workspaceId: w.B.id, createdBy: 'test' };
      const results = await Promise.all(Array.from({ length: 6 }, () => defaultCollection(db(), scope)));
      assert.equal(new Set(results.map((result) => result.id)).size, 1);
      assert.equal(results[0]!.slug, 'default');
      const rows = await db().select().from(promptCollections).where(and(eq(promptCollections.workspaceId, w.B.id), eq(promptCollections.isDefault, true)));
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.name, 'Default');
      assert.deepEqual(await findCollection(db(), w.B.id, 'default'), { id: results[0]!.id, slug: 'default', workspaceId: w.B.id });
      assert.equal(await findCollection(db(), w.A, results[0]!.id), null, 'another workspace\'s collection');
      // the default cannot be deleted: a 404, as the reference says, and it stays
      assert.equal((await admin('DELETE', `/collections/${results[0]!.id}`)).status, 404);
      assert.equal((await defaultCollection(db(), scope)).id, results[0]!.id);
      const listed = await ok('GET', `/collections?workspace_id=${w.B.slug}`);
      assert.ok(listed.data.some((row: { id: string; is_default: boolean }) => row.id === results[0]!.id && row.is_default));
    });

    test('create, read by id and by slug, with the documented shapes; audited', async () => {
      const created = await create({ name: 'Support bots' });
      assertDocumented('POST', '/collections', created);
      assert.deepEqual(Object.keys(created).sort(), ['id', 'slug']);
      assert.match(created.slug, /^col-support-bo-[0-9a-f]{6}$/);
      const bySlug = await ok('GET', `/collections/${created.slug}`);
      assertDocumented('GET', '/collections/{collectionId}', bySlug);
      assert.equal(bySlug.id, created.id);
      assert.equal(bySlug.workspace_id, w.A);
      assert.equal(bySlug.is_default, false);
      assert.equal(bySlug.parent_collection_id, null);
      assert.equal(bySlug.status, 'active');
      assert.deepEqual(bySlug.child_collections, []);
      assert.equal((await ok('GET', `/collections/${created.id.toUpperCase()}`)).slug, created.slug);
      await audited(w, 'collections.create', 'success', created.id);
      const bySvc = await create({ name: 'svc', workspace_id: undefined }, w.keys.svcA.key);
      assert.equal((await ok('GET', `/collections/${bySvc.id}`)).workspace_id, w.A, 'a workspace key creates in its workspace');
    });

    test('nesting: children and prompt counts, moves, and no cycles', async () => {
      const parent = await create({ name: 'Parent' });
      const child = await create({ name: 'Child', parent_collection_id: parent.slug });
      const grandchild = await create({ name: 'Grandchild', parent_collection_id: child.id });
      await db().insert(prompts).values({ organisationId: w.organisationId, workspaceId: w.A, collectionId: child.id, slug: `p-${child.id.slice(0, 6)}`, name: 'p', createdBy: 'test' });
      const read = await ok('GET', `/collections/${parent.id}`);
      assert.deepEqual(read.child_collections.map((row: { id: string }) => row.id), [child.id]);
      assert.equal(read.collection_details.child_collections_count, 1);
      assert.equal(read.collection_details.prompts_count, 0);
      assert.ok(Date.parse(read.collection_details.child_collections_last_updated_at) > 0);
      assert.deepEqual(read.child_collections[0].collection_details, {
        ...read.child_collections[0].collection_details, child_collections_count: 1, prompts_count: 1,
      });
      const listed = await ok('GET', `/collections?workspace_id=${w.A}&page_size=1000`);
      assertDocumented('GET', '/collections', listed);
      const childListed = listed.data.find((row: { id: string }) => row.id === child.id);
      assert.equal(childListed.parent_collection_id, parent.id);
      assert.equal(childListed.collection_details.prompts_count, 1);
      assert.ok(Date.parse(childListed.collection_details.prompts_last_updated_at) > 0);
      // cycles: under itself, under its own grandchild
      await expectParam('PUT', `/collections/${parent.id}`, { parent_collection_id: parent.id }, 'parent_collection_id');
      const cycle = await expectParam('PUT', `/collections/${parent.id}`, { parent_collection_id: grandchild.slug }, 'parent_collection_id');
      assert.equal(cycle.code, 'collection_cycle');
      // a move to the top and a rename
      assert.deepEqual(await ok('PUT', `/collections/${grandchild.id}`, { parent_collection_id: null, name: 'Top' }), {});
      const moved = await ok('GET', `/collections/${grandchild.id}`);
      assert.equal(moved.parent_collection_id, null);
      assert.equal(moved.name, 'Top');
      await audited(w, 'collections.update', 'success', grandchild.id);
      // a parent of another workspace is refused
      const inB = await create({ name: 'In B', workspace_id: w.B.id });
      await expectParam('POST', '/collections', { name: 'x', workspace_id: w.A, parent_collection_id: inB.id }, 'parent_collection_id');
      await expectParam('PUT', `/collections/${child.id}`, { parent_collection_id: inB.slug }, 'parent_collection_id');
    });

    test('delete archives; a collection with contents is a 409; the slug then answers 404', async () => {
      const parent = await create({ name: 'To delete' });
      const child = await create({ name: 'Inside', parent_collection_id: parent.id });
      const refused = await admin('DELETE', `/collections/${parent.id}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'collection_not_empty');
      await audited(w, 'collections.delete', 'failed');
      assert.deepEqual(await ok('DELETE', `/collections/${child.slug}`), {});
      assert.deepEqual(await ok('DELETE', `/collections/${parent.slug}`), {});
      await audited(w, 'collections.delete', 'success', parent.id);
      assert.equal((await db().select().from(promptCollections).where(eq(promptCollections.id, parent.id)))[0]!.status, 'archived');
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        assert.equal((await admin(method, `/collections/${parent.id}`, body)).status, 404, method);
      }
      const listed = await ok('GET', `/collections?workspace_id=${w.A}&page_size=1000`);
      assert.ok(!listed.data.some((row: { id: string }) => row.id === parent.id), 'an archived collection is not listed');
    });

    test('bad bodies and parameters are 400s naming the field, and write nothing', async () => {
      const cases: Array<[unknown, string]> = [
        [{ workspace_id: w.A }, 'name'],
        [{ name: '', workspace_id: w.A }, 'name'],
        [{ name: 7, workspace_id: w.A }, 'name'],
        [{ name: 'x', workspace_id: 'bad slug' }, 'workspace_id'],
        [{ name: 'x', workspace_id: w.A, parent_collection_id: MISSING }, 'parent_collection_id'],
        [{ name: 'x', workspace_id: w.A, parent_collection_id: 'no such' }, 'parent_collection_id'],
        [{ name: 'x', workspace_id: w.A, surprise: 1 }, 'surprise'],
        [{ name: 'x' }, 'workspace_id'],
      ];
      for (const [body, param] of cases) await expectParam('POST', '/collections', body, param);
      await expectParam('POST', '/collections', { name: 'x', workspace_id: MISSING }, null, 404);
      assert.equal((await db().select().from(promptCollections).where(eq(promptCollections.name, 'x'))).length, 0);
      await audited(w, 'collections.create', 'failed');
      const target = await create({ name: 'Target' });
      for (const [body, param] of [[{}, 'body'], [{ name: '' }, 'name'], [{ slug: 'new' }, 'slug']] as const) {
        await expectParam('PUT', `/collections/${target.id}`, body, param);
      }
      await expectParam('GET', '/collections/no.such', undefined, 'collectionId');
      await expectParam('GET', `/collections/${MISSING}`, undefined, null, 404);
      await expectParam('GET', '/collections', undefined, 'workspace_id');
      for (const query of ['page_size=0', 'page_size=1001', 'current_page=-1']) {
        await expectParam('GET', `/collections?workspace_id=${w.A}&${query}`, undefined, query.split('=')[0]!);
      }
      await expectParam('GET', `/collections?workspace_id=${MISSING}`, undefined, null, 404);
    });

    test('list: pages, search, and a workspace key\'s own workspace', async () => {
      await create({ name: 'Findable Alpha' });
      await create({ name: 'Findable Beta' });
      const found = await ok('GET', `/collections?workspace_id=${w.A}&search=findable`);
      assert.equal(found.total, 2);
      const second = await ok('GET', `/collections?workspace_id=${w.A}&search=findable&page_size=1&current_page=1`);
      assert.deepEqual(second.data.map((row: { id: string }) => row.id), [found.data[1].id]);
      assert.equal(second.total, 2);
      const own = await ok('GET', '/collections?page_size=1000', undefined, w.keys.svcA.key);
      assert.ok(own.total > 0 && own.data.every((row: { workspace_id: string }) => row.workspace_id === w.A));
      assert.equal((await w.call('GET', `/collections?workspace_id=${w.A}`, w.keys.svcB.key)).status, 404);
      assert.equal((await ok('GET', '/collections?search=100%25', undefined, w.keys.svcA.key)).total, 0, 'LIKE wildcards are literal');
    });

    test('roles: managers change, members read, another workspace is a 404', async () => {
      const mine = await create({ name: 'By manager' }, w.keys.managerA.key);
      const denied = await w.call('POST', '/collections', w.keys.memberA.key, { name: 'm' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'workspace_manager_required');
      await audited(w, 'collections.create', 'denied');
      assert.equal((await w.call('PUT', `/collections/${mine.id}`, w.keys.memberA.key, { name: 'm' })).status, 403);
      assert.equal((await w.call('DELETE', `/collections/${mine.id}`, w.keys.memberA.key)).status, 403);
      assert.equal((await w.call('GET', `/collections/${mine.id}`, w.keys.memberA.key)).status, 200, 'members read');
      assert.equal((await w.call('GET', '/collections', w.keys.memberA.key)).status, 200);
      assert.equal((await w.call('POST', '/collections', w.keys.svcA.key, { name: 'x', workspace_id: w.B.id })).status, 404);
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        assert.equal((await w.call(method, `/collections/${mine.slug}`, w.keys.svcB.key, body)).status, 404, `${method} from B`);
      }
      assert.equal((await ok('GET', `/collections/${mine.id}`)).name, 'By manager', 'nothing changed');
    });

    test('every route needs its scope: 403 naming it, audited as denied', async () => {
      const routes: Array<[string, string, unknown, string]> = [
        ['POST', '/collections', { name: 'x', workspace_id: w.A }, 'collections.create'],
        ['GET', `/collections?workspace_id=${w.A}`, undefined, 'collections.list'],
        ['GET', `/collections/${MISSING}`, undefined, 'collections.read'],
        ['PUT', `/collections/${MISSING}`, { name: 'x' }, 'collections.update'],
        ['DELETE', `/collections/${MISSING}`, undefined, 'collections.delete'],
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
