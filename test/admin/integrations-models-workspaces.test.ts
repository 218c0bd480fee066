/**
 * Integrations > Models and Integrations > Workspaces over HTTP, on every back-end: custom models with their price,
 * allow_all_models, deleting custom models; per-workspace access with limits, global access, default providers in
 * the workspaces enabled, who may see and change it; every change audited and announced.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { and, eq } from 'drizzle-orm';
import { INTEGRATIONS_CHANGED } from '../../src/domain/integrations/credentials.ts';
import { auditLogs, integrationModels, providers } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `integrations.${action}`);
const PRICE = { type: 'static', pay_as_you_go: { request_token: { price: 0.001 }, response_token: { price: 0.002 } } };

for (const backend of testBackends()) {
  describe(`integration models and workspaces on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: { id: string; slug: string };
    let C: { id: string; slug: string };
    let svcA: { id: string; key: string };
    let integration: { id: string; slug: string };
    const announced: string[] = [];
    const db = () => gateway.gateway.database.db;

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, status, `${method} ${path} ${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }
    async function audited(action: string, outcome: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.length > 0, `an audit record ${action}/${outcome}`);
    }
    const providersOf = async (workspaceId: string) =>
      (await db().select().from(providers).where(and(eq(providers.integrationId, integration.id), eq(providers.workspaceId, workspaceId)))).map((row) => row.slug);

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      await gateway.gateway.kv.subscribe(INTEGRATIONS_CHANGED, (message) => announced.push(message));
      A = gateway.gateway.bootstrap.workspace.id;
      B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
      C = await ok('POST', '/admin/workspaces', { name: 'Team C', slug: 'team-c' });
      svcA = await ok('POST', '/api-keys/workspace/service', { name: 'k', scopes: SCOPES, workspace_id: A });
      integration = await ok('POST', '/integrations', { name: 'Shared', slug: 'shared', ai_provider_id: 'openai', key: 'sk-shared-0123456789abcdef' });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('models: custom models need their price; omitted fields keep what is stored; allow_all_models; audited and announced', async () => {
      assert.deepEqual(await ok('GET', '/integrations/shared/models'), { total: 0, models: [], allow_all_models: true });
      const before = announced.length;
      await ok('PUT', '/integrations/shared/models', {
        models: [
          { slug: 'my-finetune', enabled: true, is_custom: true, is_finetune: true, base_model_slug: 'gpt-4o-mini', name: 'Mine', pricing_config: PRICE },
          { slug: 'gpt-4o', enabled: false },
        ],
        allow_all_models: false,
      });
      assert.equal(announced.length, before + 1);
      await audited('integrations.models.update', 'success');
      const listed = await ok('GET', '/integrations/shared/models');
      assert.equal(listed.allow_all_models, false);
      assert.deepEqual(listed.models, [
        { slug: 'gpt-4o', name: null, enabled: false, is_custom: null, is_finetune: null, base_model_slug: null, configurations: null, pricing_config: null },
        { slug: 'my-finetune', name: 'Mine', enabled: true, is_custom: true, is_finetune: true, base_model_slug: 'gpt-4o-mini', configurations: null, pricing_config: PRICE },
      ]);
      assert.equal((await ok('GET', '/integrations/shared')).allow_all_models, false);
      await ok('PUT', '/integrations/shared/models', { models: [{ slug: 'my-finetune', enabled: false, configurations: { custom_host: 'http://127.0.0.1:9/v1' } }] });
      const kept = (await ok('GET', '/integrations/shared/models')).models[1];
      assert.deepEqual([kept.enabled, kept.pricing_config, kept.name, kept.configurations], [false, PRICE, 'Mine', { custom_host: 'http://127.0.0.1:9/v1' }]);
      const cases: Array<[unknown, string]> = [
        [{ models: [{ slug: 'new-custom', enabled: true, is_custom: true }] }, 'models[0].pricing_config'],
        [{ models: [{ slug: 'my-finetune', enabled: true, pricing_config: null }] }, 'models[0].pricing_config'],
        [{ models: [{ slug: 'a', enabled: true }, { slug: 'a', enabled: false }] }, 'models[1].slug'],
        [{ models: [{ slug: 'bad slug', enabled: true }] }, 'models[0].slug'],
        [{ models: [{ slug: 'a,b', enabled: true }] }, 'models[0].slug'],
        [{ models: [{ slug: 'a' }] }, 'models[0].enabled'],
        [{ models: [{ slug: 'a', enabled: true, configurations: { custom_host: 'http://10.1.2.3' } }] }, 'models[0].configurations.custom_host'],
        [{ models: [{ slug: 'a', enabled: true, pricing_config: { pay_as_you_go: { request_token: { price: -1 } } } }] }, 'models[0].pricing_config.pay_as_you_go.request_token.price'],
        [{ models: [{ slug: 'a', enabled: true, pricing_config: { pay_as_you_go: { made_up_token: { price: 1 } } } }] }, 'models[0].pricing_config.pay_as_you_go.made_up_token'],
        [{ allow_all_models: true }, 'models'],
      ];
      for (const [body, param] of cases) await expectParam('PUT', '/integrations/shared/models', body, param);
      assert.equal((await db().select().from(integrationModels).where(eq(integrationModels.slug, 'a'))).length, 0, 'a refused update writes nothing');
    });

    test('models: only custom models are deleted; unknown ones are 404s; slugs is required', async () => {
      await ok('PUT', '/integrations/shared/models', { models: [{ slug: 'custom-2', enabled: true, is_custom: true, pricing_config: PRICE }] });
      await expectParam('DELETE', '/integrations/shared/models?slugs=gpt-4o', undefined, 'slugs');
      await expectParam('DELETE', '/integrations/shared/models?slugs=custom-2,nope', undefined, null, 404);
      await expectParam('DELETE', '/integrations/shared/models', undefined, 'slugs');
      await expectParam('DELETE', '/integrations/shared/models?slugs=a,,b', undefined, 'slugs');
      await ok('DELETE', '/integrations/shared/models?slugs=custom-2,my-finetune');
      assert.deepEqual((await ok('GET', '/integrations/shared/models')).models.map((model: { slug: string }) => model.slug), ['gpt-4o']);
      await audited('integrations.models.delete', 'success');
      await expectParam('GET', `/integrations/${MISSING}/models`, undefined, null, 404);
    });

    test('workspaces: enabling creates default providers; limits are kept per workspace; global access and override', async () => {
      const initial = await ok('GET', '/integrations/shared/workspaces');
      assert.deepEqual(initial, { total: 1, workspaces: [{ id: A, enabled: true, usage_limits: null, rate_limits: null }], global_workspace_access: null });
      const limits = { rate_limits: [{ type: 'requests', unit: 'rpm', value: 100 }], usage_limits: [{ type: 'cost', credit_limit: 50, periodic_reset: 'monthly' }] };
      const before = announced.length;
      await ok('PUT', '/integrations/shared/workspaces', { workspaces: [{ id: 'team-b', enabled: true, ...limits }, { id: C.id, enabled: true, default_provider_slug: 'shared-c' }] });
      assert.equal(announced.length, before + 1);
      await audited('integrations.workspaces.update', 'success');
      assert.deepEqual(await providersOf(B.id), ['shared']);
      assert.deepEqual(await providersOf(C.id), ['shared-c']);
      const listed = await ok('GET', '/integrations/shared/workspaces');
      assert.equal(listed.total, 3);
      assert.deepEqual(listed.workspaces.find((item: { id: string }) => item.id === B.id), { id: B.id, enabled: true, ...limits });
      assert.equal((await ok('GET', '/integrations/shared')).workspace_count, 3);
      // disabling keeps the limits and the provider record; the integration is then not usable there
      await ok('PUT', '/integrations/shared/workspaces', { workspaces: [{ id: B.id, enabled: false }] });
      const disabled = (await ok('GET', '/integrations/shared/workspaces')).workspaces.find((item: { id: string }) => item.id === B.id);
      assert.deepEqual(disabled, { id: B.id, enabled: false, ...limits });
      assert.deepEqual(await providersOf(B.id), ['shared']);
      assert.equal((await ok('GET', '/integrations/shared')).workspace_count, 2);
      // global access covers every workspace without a row turning it off; override clears the rows
      await ok('PUT', '/integrations/shared/workspaces', { global_workspace_access: { enabled: true } });
      assert.equal((await ok('GET', '/integrations/shared')).workspace_count, 2, 'B still turned off by its row');
      await ok('PUT', '/integrations/shared/workspaces', { workspaces: [], global_workspace_access: { enabled: true, rate_limits: [{ type: 'tokens', unit: 'rph', value: 1000 }] }, override_existing_workspace_access: true });
      const overridden = await ok('GET', '/integrations/shared');
      assert.deepEqual([overridden.workspace_count, overridden.global_workspace_access_settings], [3, { enabled: true, rate_limits: [{ type: 'tokens', unit: 'rph', value: 1000 }] }]);
      assert.equal((await ok('GET', '/integrations/shared/workspaces')).total, 0);
      await ok('PUT', '/integrations/shared/workspaces', { global_workspace_access: null, workspaces: [{ id: A, enabled: true, create_default_provider: false }] });
      assert.equal((await ok('GET', '/integrations/shared')).workspace_count, 1);
    });

    test('workspaces: bad bodies name the field; a clash of provider slugs is a 409; only admin keys see or change an organisation integration\'s', async () => {
      const cases: Array<[unknown, string]> = [
        [{ workspaces: [{ id: A }] }, 'workspaces[0].enabled'],
        [{ workspaces: [{ id: 'bad id', enabled: true }] }, 'workspaces[0].id'],
        [{ workspaces: [{ id: A, enabled: true }, { id: A, enabled: false }] }, 'workspaces[1].id'],
        [{ workspaces: [{ id: A, enabled: true, rate_limits: [{ type: 'requests', unit: 'rps', value: 1 }] }] }, 'workspaces[0].rate_limits[0].unit'],
        [{ workspaces: [{ id: A, enabled: true, usage_limits: [{ periodic_reset: 'weekly', periodic_reset_days: 3 }] }] }, 'workspaces[0].usage_limits[0].periodic_reset_days'],
        [{ global_workspace_access: { rate_limits: [] } }, 'global_workspace_access.enabled'],
        [{ override_existing_workspace_access: 'yes' }, 'override_existing_workspace_access'],
      ];
      for (const [body, param] of cases) await expectParam('PUT', '/integrations/shared/workspaces', body, param);
      await expectParam('PUT', '/integrations/shared/workspaces', { workspaces: [{ id: MISSING, enabled: true }] }, 'workspaces[0].id', 404);
      const other = await ok('POST', '/integrations', { name: 'Other', slug: 'other', ai_provider_id: 'anthropic', create_default_provider: false });
      const clash = await call('PUT', '/integrations/other/workspaces', gateway.adminKey, { workspaces: [{ id: C.id, enabled: true, default_provider_slug: 'shared-c' }] });
      assert.deepEqual([clash.status, clash.body.error.param, clash.body.error.code], [409, 'workspaces[0].default_provider_slug', 'provider_slug_taken']);
      assert.equal((await ok('GET', `/integrations/${other.id}/workspaces`)).total, 0, 'the refused change left nothing');
      // svcA sees `shared` (enabled for A) but not which other workspaces use it, and changes nothing of it
      assert.equal((await call('GET', '/integrations/shared', svcA.key)).status, 200);
      for (const [method, path, body] of [
        ['GET', '/integrations/shared/workspaces', undefined], ['PUT', '/integrations/shared/workspaces', { workspaces: [] }],
        ['PUT', '/integrations/shared/models', { models: [] }], ['DELETE', '/integrations/shared/models?slugs=gpt-4o', undefined],
      ] as const) {
        const denied = await call(method, path, svcA.key, body);
        assert.deepEqual([denied.status, denied.body.error.code], [403, 'admin_key_required'], `${method} ${path}`);
      }
      assert.deepEqual((await ok('GET', '/integrations/shared/models', undefined, svcA.key)).models.length, 1, 'its models are readable');
      await audited('integrations.workspaces.list', 'denied');
      // a workspace integration: its list is its workspace, and it has no access to change
      const own = await ok('POST', '/integrations', { name: 'Own', slug: 'a-own', ai_provider_id: 'openai' }, svcA.key);
      assert.deepEqual(await ok('GET', `/integrations/${own.id}/workspaces`, undefined, svcA.key), { total: 1, workspaces: [{ id: A, enabled: true, usage_limits: null, rate_limits: null }], global_workspace_access: null });
      await expectParam('PUT', '/integrations/a-own/workspaces', { workspaces: [{ id: B.id, enabled: true }] }, 'workspaces', 400, svcA.key);
      await ok('PUT', '/integrations/a-own/models', { models: [{ slug: 'gpt-4o-mini', enabled: false }] }, svcA.key);
      assert.equal((await call('GET', '/integrations/a-own/models', (await ok('POST', '/api-keys/workspace/service', { name: 'b', scopes: SCOPES, workspace_id: B.id })).key)).status, 404);
    });

    test('the answers match the 200 schemas the OpenAPI document gives them', async () => {
      const document = await ok('GET', '/openapi.json');
      const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
      ajv.addSchema({ ...document, $id: 'https://gateway.invalid/openapi.json' });
      const token = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');
      const checks: Array<[string, string, string]> = [
        ['/integrations', '/integrations', 'get'],
        ['/integrations/{slug}', '/integrations/shared', 'get'],
        ['/integrations/{slug}/models', '/integrations/shared/models', 'get'],
        ['/integrations/{slug}/workspaces', '/integrations/shared/workspaces', 'get'],
      ];
      for (const [template, path, method] of checks) {
        const pointer = ['paths', template, method, 'responses', '200', 'content', 'application/json', 'schema'].map(token).join('/');
        const validate = ajv.getSchema(`https://gateway.invalid/openapi.json#/${pointer}`);
        assert.ok(validate, `${template} documents no answer`);
        const body = await ok(method.toUpperCase(), path);
        assert.ok(validate(body), `${path}: ${ajv.errorsText(validate.errors)}`);
      }
      const created = await ok('POST', '/integrations', { name: 'Docs', ai_provider_id: 'openai', create_default_provider: false });
      const validate = ajv.getSchema(`https://gateway.invalid/openapi.json#/${['paths', '/integrations', 'post', 'responses', '200', 'content', 'application/json', 'schema'].map(token).join('/')}`)!;
      assert.ok(validate(created), ajv.errorsText(validate.errors));
    });
  });
}
