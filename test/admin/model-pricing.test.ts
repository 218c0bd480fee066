/**
 * The model-pricing group over HTTP, on every back-end: custom prices per workspace and organisation-wide, which
 * one requests pay (workspace, organisation, catalog), validation (400 naming the field, exact prices only), grants
 * and denials by role, key kind and scope, audit records, and concurrent writers leaving one row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLogs, modelPrices, users } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `model_pricing.${action}`);
const PRICE = { pay_as_you_go: { request_token: { price: 0.0001 }, response_token: { price: 0.0003 } } };
const CHEAPER = { pay_as_you_go: { request_token: { price: 0.00005 }, response_token: { price: 0.0001 }, cache_read_input_token: { price: 0.000005 } } };
const MODEL = '/model-pricing/openai/my-finetune';

for (const backend of testBackends()) {
  describe(`model pricing on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let A: string; // the default workspace
    let B: string;
    const keys = {} as Record<'svcA' | 'svcB' | 'managerA' | 'memberA' | 'readOnly' | 'createOnly', { id: string; key: string }>;
    const db = () => gateway.gateway.database.db;
    const orgId = () => gateway.gateway.bootstrap.organisation.id;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    async function status(expected: number, method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, expected, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const createKey = (path: string, body: Record<string, unknown>) => ok('POST', `/api-keys/${path}`, { name: 'k', scopes: SCOPES, ...body });
    async function member(workspaceId: string, email: string, role: string) {
      const [row] = await db().insert(users).values({ organisationId: orgId(), email, role: 'member' }).returning();
      await ok('POST', `/admin/workspaces/${workspaceId}/users`, { users: [{ id: row!.id, role }] });
      return createKey('workspace/user', { workspace_id: workspaceId, user_id: row!.id });
    }
    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    before(async () => {
      gateway = await startBackendGateway(backend);
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = (await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' })).id;
      keys.svcA = await createKey('workspace/service', { workspace_id: A });
      keys.svcB = await createKey('workspace/service', { workspace_id: B });
      keys.managerA = await member(A, 'manager@example.com', 'manager');
      keys.memberA = await member(A, 'member@example.com', 'member');
      keys.readOnly = await createKey('workspace/service', { workspace_id: A, scopes: ['model_pricing.read', 'model_pricing.list'] });
      keys.createOnly = await createKey('workspace/service', { workspace_id: A, scopes: ['model_pricing.create', 'model_pricing.read'] });
    });

    after(() => gateway?.close());

    test('an admin key sets an organisation-wide price: the view, the effective price, the list, the audit record', async () => {
      const set = await ok('PUT', MODEL, PRICE);
      assert.deepEqual({ ...set, id: 'id', created_at: 't', last_updated_at: 't' }, {
        object: 'model_price', id: 'id', organisation_id: orgId(), workspace_id: null, provider: 'openai', model: 'my-finetune',
        pay_as_you_go: PRICE.pay_as_you_go, currency: 'USD', created_at: 't', last_updated_at: 't',
      });
      const effective = await ok('GET', MODEL);
      assert.deepEqual(effective, {
        object: 'model_pricing', provider: 'openai', model: 'my-finetune', source: 'organisation', id: set.id, workspace_id: null,
        pay_as_you_go: {
          request_token: { price: 0.0001 }, response_token: { price: 0.0003 },
          cache_read_input_token: { price: 0.0001 }, cache_write_input_token: { price: 0.0001 }, reasoning_token: { price: 0.0003 },
        },
        currency: 'USD',
      });
      // every key of the organisation pays it: a workspace key sees it from its workspace
      assert.equal((await ok('GET', MODEL, undefined, keys.svcB.key)).source, 'organisation');
      const listed = await ok('GET', '/model-pricing?provider=openai');
      assert.equal(listed.object, 'list');
      assert.ok(listed.data.some((row: { id: string }) => row.id === set.id));
      await audited('model_pricing.update', 'success', set.id);
    });

    test('a workspace price wins in its workspace only; PUT replaces; DELETE falls back to the next price', async () => {
      const path = '/model-pricing/together-ai/meta-llama/Llama-3.3-70B-Instruct-Turbo';
      assert.equal((await ok('GET', path)).source, 'catalog', 'the model name keeps its slashes');
      const inA = await ok('PUT', path, { ...PRICE, workspace_id: A });
      assert.equal(inA.workspace_id, A);
      assert.equal(inA.model, 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
      const replaced = await ok('PUT', path, { ...CHEAPER, workspace_id: A });
      assert.equal(replaced.id, inA.id, 'the same row, replaced');
      assert.deepEqual(replaced.pay_as_you_go, CHEAPER.pay_as_you_go);
      const seenByA = await ok('GET', path, undefined, keys.svcA.key);
      assert.deepEqual([seenByA.source, seenByA.id, seenByA.pay_as_you_go.request_token.price], ['workspace', inA.id, 0.00005]);
      assert.equal((await ok('GET', path, undefined, keys.svcB.key)).source, 'catalog');
      assert.equal((await ok('GET', `${path}?workspace_id=${A}`)).source, 'workspace');
      assert.equal((await ok('GET', path)).source, 'catalog', 'an admin key without workspace_id reads the organisation');
      assert.deepEqual(await ok('DELETE', `${path}?workspace_id=${A}`), {});
      assert.equal((await ok('GET', path, undefined, keys.svcA.key)).source, 'catalog');
      await status(404, 'DELETE', `${path}?workspace_id=${A}`);
      await audited('model_pricing.delete', 'success', inA.id);
      const rows = await db().select().from(modelPrices).where(eq(modelPrices.model, 'meta-llama/Llama-3.3-70B-Instruct-Turbo'));
      assert.equal(rows.length, 0);
    });

    test('no price anywhere is a 404; bad input is a 400 naming the field, and writes nothing', async () => {
      const unknown = await status(404, 'GET', '/model-pricing/openai/never-priced');
      assert.equal(unknown.error.code, 'model_pricing_not_found');
      const cases: Array<[string, unknown, string]> = [
        ['/model-pricing/openai/bad', { pay_as_you_go: { request_token: { price: 0.0001 } } }, 'pay_as_you_go.response_token'],
        ['/model-pricing/openai/bad', { pay_as_you_go: { ...PRICE.pay_as_you_go, request_token: { price: -1 } } }, 'pay_as_you_go.request_token.price'],
        ['/model-pricing/openai/bad', { pay_as_you_go: { ...PRICE.pay_as_you_go, request_token: { price: '0.1' } } }, 'pay_as_you_go.request_token.price'],
        ['/model-pricing/openai/bad', { pay_as_you_go: { ...PRICE.pay_as_you_go, request_token: { price: 0.1 + 0.2 } } }, 'pay_as_you_go.request_token.price'],
        ['/model-pricing/openai/bad', { pay_as_you_go: { ...PRICE.pay_as_you_go, image_token: { price: 1 } } }, 'pay_as_you_go.image_token'],
        ['/model-pricing/openai/bad', { ...PRICE, currency: 'EUR' }, 'currency'],
        ['/model-pricing/openai/bad', { ...PRICE, workspace_id: 'no/slash' }, 'workspace_id'],
        ['/model-pricing/openai/bad', {}, 'pay_as_you_go'],
        ['/model-pricing/openai/bad', [PRICE], 'body'],
        ['/model-pricing/no-such-provider/bad', PRICE, 'provider'],
        ['/model-pricing/Not%20A%20Provider/bad', PRICE, 'provider'],
        [`/model-pricing/openai/${'x'.repeat(256)}`, PRICE, 'model'],
      ];
      for (const [path, body, param] of cases) {
        const error = (await status(400, 'PUT', path, body)).error;
        assert.equal(error.param, param, `${JSON.stringify(body)} -> ${JSON.stringify(error)}`);
      }
      await status(404, 'PUT', '/model-pricing/openai/bad', { ...PRICE, workspace_id: '00000000-0000-4000-8000-000000000000' });
      assert.equal((await db().select().from(modelPrices).where(eq(modelPrices.model, 'bad'))).length, 0);
      await audited('model_pricing.update', 'failed');
      for (const query of ['workspace_id=', 'workspace_id=a&workspace_id=b', 'page_size=0']) {
        await status(400, 'GET', `/model-pricing?${query}`);
      }
    });

    test('roles: a workspace key manages its own workspace\'s prices (members read), never another\'s nor the organisation\'s', async () => {
      const path = '/model-pricing/anthropic/house-model';
      const byService = await ok('PUT', path, PRICE, keys.svcA.key);
      assert.equal(byService.workspace_id, A, 'a workspace key\'s price is its workspace\'s');
      await ok('PUT', path, CHEAPER, keys.managerA.key);
      const denied = await status(403, 'PUT', path, PRICE, keys.memberA.key);
      assert.equal(denied.error.code, 'workspace_manager_required');
      await audited('model_pricing.update', 'denied');
      assert.equal((await ok('GET', path, undefined, keys.memberA.key)).source, 'workspace', 'a member reads');
      await status(403, 'DELETE', path, undefined, keys.memberA.key);
      await status(404, 'PUT', path, { ...PRICE, workspace_id: A }, keys.svcB.key);
      await status(404, 'GET', `${path}?workspace_id=${A}`, undefined, keys.svcB.key);
      await status(404, 'DELETE', `${path}?workspace_id=${A}`, undefined, keys.svcB.key);
      await status(404, 'GET', `/model-pricing?workspace_id=${A}`, undefined, keys.svcB.key);
      const listedByB = await ok('GET', '/model-pricing', undefined, keys.svcB.key);
      assert.ok(listedByB.data.every((row: { workspace_id: string | null }) => row.workspace_id === null || row.workspace_id === B), 'B sees only its own and the organisation\'s');
      assert.deepEqual(await ok('DELETE', path, undefined, keys.managerA.key), {});
    });

    test('scopes: PUT takes create for a new price and update to replace one; reads take read and list', async () => {
      const path = '/model-pricing/mistral-ai/scoped-model';
      const none = await status(403, 'PUT', path, PRICE, keys.readOnly.key);
      assert.match(none.error.message, /model_pricing\.create/);
      await ok('PUT', path, PRICE, keys.createOnly.key);
      const replace = await status(403, 'PUT', path, CHEAPER, keys.createOnly.key);
      assert.match(replace.error.message, /model_pricing\.update/);
      assert.deepEqual((await ok('GET', path, undefined, keys.readOnly.key)).pay_as_you_go.request_token, { price: 0.0001 }, 'the refused replace changed nothing');
      const list = await status(403, 'GET', '/model-pricing', undefined, keys.createOnly.key);
      assert.match(list.error.message, /model_pricing\.list/);
      await status(403, 'DELETE', path, undefined, keys.readOnly.key);
      assert.equal((await call('GET', path, undefined)).status, 401, 'no key');
      await ok('DELETE', path, undefined, keys.svcA.key);
    });

    test('concurrent PUTs of one scope leave one row', async () => {
      const path = '/model-pricing/groq/raced-model';
      const answers = await Promise.all(Array.from({ length: 8 }, (_, index) =>
        admin('PUT', path, { pay_as_you_go: { request_token: { price: index / 10_000 }, response_token: { price: 0.001 } } })));
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const rows = await db().select().from(modelPrices).where(and(eq(modelPrices.provider, 'groq'), eq(modelPrices.model, 'raced-model')));
      assert.equal(rows.length, 1);
    });
  });
}
