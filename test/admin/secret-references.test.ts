/**
 * The Secret references group over HTTP, on every back-end: every route, grants and denials (admin keys write; a
 * workspace key reads what its workspace may use), masked reads, validation naming the field, the in-use refusal
 * of a delete, the audit record, and the tables read back with no secret in clear.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { auditLogs, integrations, secretReferences } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';

const MISSING = '00000000-0000-4000-8000-000000000000';
const SCOPES = ['create', 'read', 'update', 'delete', 'list'].map((action) => `secret_references.${action}`);
const MASK = '********';
/** every secret this file sends: none may be found in clear in a table or an answer */
const SECRETS = {
  aws: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  entra: 'entra~client~secret~in~test',
  vaultToken: 'hvs.CAESIJ-vault-token-in-test',
  vaultSecretId: '6a174c20-f6de-a53c-74d2-6018fcceff64',
  sealed: 'sk-sealed-value-in-test',
  rotated: 'hvs.rotated-vault-token-in-test',
};
const AUTH = {
  aws_sm: { aws_auth_type: 'accessKey', aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE', aws_secret_access_key: SECRETS.aws, aws_region: 'us-east-1' },
  azure_kv: {
    azure_auth_mode: 'entra', azure_entra_tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47', azure_entra_client_id: 'b2c4e6a8-1111-4222-8333-944455556666',
    azure_entra_client_secret: SECRETS.entra, azure_vault_url: 'https://team.vault.azure.net',
  },
  vault_token: { vault_auth_type: 'token', vault_addr: 'https://vault.example.com:8200', vault_token: SECRETS.vaultToken, vault_namespace: 'team-a' },
  vault_approle: { vault_auth_type: 'approle', vault_addr: 'https://vault.example.com:8200', vault_role_id: 'db02de05-fa39', vault_secret_id: SECRETS.vaultSecretId },
};

for (const backend of testBackends()) {
  describe(`secret references on ${backend.name}`, () => {
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};
    let A: string;
    let B: { id: string; slug: string };
    const keys = {} as Record<'svcA' | 'svcB' | 'listOnly', { id: string; key: string }>;
    const refs = {} as Record<'aws' | 'azure' | 'vaultToken' | 'vaultAppRole' | 'sealed' | 'env' | 'onlyB', { id: string; slug: string }>;
    const db = () => gateway.gateway.database.db;
    const admin = (method: string, path: string, body?: unknown) => call(method, path, gateway.adminKey, body);

    async function ok(method: string, path: string, body?: unknown, key = gateway.adminKey) {
      const response = await call(method, path, key, body);
      assert.equal(response.status, 200, `${method} ${path} -> ${JSON.stringify(response.body)}`);
      return response.body;
    }
    const create = (body: Record<string, unknown>, key?: string) => ok('POST', '/secret-references', { name: 'Secret', ...body }, key);

    async function expectParam(method: string, path: string, body: unknown, param: string | null, status = 400) {
      const response = await admin(method, path, body);
      assert.equal(response.status, status, `${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.param, param, JSON.stringify(response.body));
      return response.body.error;
    }

    async function audited(action: string, outcome: string, resourceId?: string) {
      const rows = await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.outcome, outcome)));
      assert.ok(rows.some((row) => resourceId === undefined || row.resourceId === resourceId), `an audit record ${action}/${outcome}`);
    }

    before(async () => {
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
      A = gateway.gateway.bootstrap.workspace.id;
      B = await ok('POST', '/admin/workspaces', { name: 'Team B', slug: 'team-b' });
      keys.svcA = await ok('POST', '/api-keys/workspace/service', { name: 'a', scopes: SCOPES, workspace_id: A });
      keys.svcB = await ok('POST', '/api-keys/workspace/service', { name: 'b', scopes: SCOPES, workspace_id: B.id });
      keys.listOnly = await ok('POST', '/api-keys/organisation/service', { name: 'list only', scopes: ['secret_references.list'] });
      refs.aws = await create({ name: 'OpenAI key in AWS', slug: 'openai-aws', manager_type: 'aws_sm', auth_config: AUTH.aws_sm, secret_path: 'prod/openai', secret_key: 'api_key', tags: { team: 'ml', env: 'prod' } });
      refs.azure = await create({ name: 'Azure', manager_type: 'azure_kv', auth_config: AUTH.azure_kv, secret_path: 'openai-key', tags: { team: 'ml' } });
      refs.vaultToken = await create({ name: 'Vault token', manager_type: 'hashicorp_vault', auth_config: AUTH.vault_token, secret_path: 'secret/team/openai' });
      refs.vaultAppRole = await create({ name: 'Vault AppRole', manager_type: 'hashicorp_vault', auth_config: AUTH.vault_approle, secret_path: 'secret/team/openai' });
      refs.sealed = await create({ name: 'Sealed', manager_type: 'sealed', auth_config: { secret_value: SECRETS.sealed }, tags: { team: 'search' } });
      refs.env = await create({ name: 'From the environment', manager_type: 'env', secret_path: 'OPENAI_API_KEY' });
      refs.onlyB = await create({ name: 'Only B', manager_type: 'sealed', auth_config: { secret_value: SECRETS.sealed }, allowed_workspaces: ['team-b'] });
    });

    after(async () => {
      await gateway?.close();
      await drop();
    });

    test('create answers {id, slug, object}; a slug is generated from the name when none is given; audited with auth_config masked', async () => {
      assert.deepEqual(Object.keys(refs.aws).sort(), ['id', 'object', 'slug']);
      assert.equal(refs.aws.slug, 'openai-aws');
      assert.match(refs.azure.slug, /^sr-azure-[0-9a-f]{6}$/);
      await audited('secret_references.create', 'success', refs.vaultAppRole.id);
      const [record] = await db().select().from(auditLogs).where(and(eq(auditLogs.action, 'secret_references.create'), eq(auditLogs.resourceId, refs.vaultAppRole.id)));
      const body = JSON.parse(record!.requestBody!);
      assert.deepEqual(body.auth_config, { ...AUTH.vault_approle, vault_secret_id: MASK });
    });

    test('a read shows the reference with every secret masked, never the value', async () => {
      const detail = await ok('GET', `/secret-references/${refs.aws.slug}`);
      const { created_at: createdAt, last_updated_at: updatedAt, created_by: createdBy, ...rest } = detail;
      assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) > 0 && typeof createdBy === 'string');
      assert.deepEqual(rest, {
        id: refs.aws.id, organisation_id: gateway.gateway.bootstrap.organisation.id, name: 'OpenAI key in AWS', slug: 'openai-aws',
        description: null, manager_type: 'aws_sm', secret_path: 'prod/openai', secret_key: 'api_key', allow_all_workspaces: true,
        allowed_workspaces: [], tags: { team: 'ml', env: 'prod' }, status: 'ACTIVE', object: 'secret-reference',
        auth_config: { ...AUTH.aws_sm, aws_secret_access_key: MASK },
      });
      assert.deepEqual((await ok('GET', `/secret-references/${refs.azure.id}`)).auth_config, { ...AUTH.azure_kv, azure_entra_client_secret: MASK });
      assert.deepEqual((await ok('GET', `/secret-references/${refs.vaultToken.slug}`)).auth_config, { ...AUTH.vault_token, vault_token: MASK });
      assert.deepEqual((await ok('GET', `/secret-references/${refs.sealed.slug}`)).auth_config, { secret_value: MASK });
      const env = await ok('GET', `/secret-references/${refs.env.slug}`);
      assert.deepEqual([env.auth_config, env.secret_path], [{}, 'OPENAI_API_KEY']);
      const everything = JSON.stringify(await Promise.all(Object.values(refs).map((ref) => ok('GET', `/secret-references/${ref.id}`))));
      for (const secret of Object.values(SECRETS)) assert.ok(!everything.includes(secret), secret);
    });

    test('the tables hold no secret in clear: auth_config is sealed, the audit records masked', async () => {
      const rows = await db().select().from(secretReferences);
      assert.ok(rows.length >= 7);
      const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
      for (const row of rows) {
        if (row.managerType === 'env') assert.equal(row.sealedAuthConfig, null);
        else assert.match(row.sealedAuthConfig!, /^enc:/);
      }
      const stored = rows.find((row) => row.id === refs.vaultAppRole.id)!;
      assert.equal(JSON.parse(cipher.open(stored.sealedAuthConfig!)).vault_secret_id, SECRETS.vaultSecretId, 'sealed with the gateway\'s key');
      const tables = JSON.stringify([rows, await db().select().from(auditLogs)]);
      for (const secret of Object.values(SECRETS)) assert.ok(!tables.includes(secret), secret);
    });

    test('list: paging, manager_type, tags and search filters', async () => {
      const all = await ok('GET', '/secret-references');
      assert.equal(all.object, 'list');
      assert.equal(all.total, 7);
      assert.deepEqual(Object.keys(all.data[0]).sort(), ['created_at', 'id', 'last_updated_at', 'manager_type', 'name', 'object', 'slug', 'status']);
      const page = await ok('GET', '/secret-references?page_size=2&current_page=1');
      assert.deepEqual([page.total, page.data.map((item: { id: string }) => item.id)], [7, [refs.vaultToken.id, refs.vaultAppRole.id]]);
      const slugs = async (query: string) => (await ok('GET', `/secret-references?${query}`)).data.map((item: { slug: string }) => item.slug).sort();
      assert.deepEqual(await slugs('manager_type=hashicorp_vault'), [refs.vaultToken.slug, refs.vaultAppRole.slug].sort());
      assert.deepEqual(await slugs('tags=team:ml'), [refs.aws.slug, refs.azure.slug].sort());
      assert.deepEqual(await slugs('tags=team:ml,env'), [refs.aws.slug]);
      assert.deepEqual(await slugs('tags=team'), [refs.aws.slug, refs.azure.slug, refs.sealed.slug].sort());
      assert.deepEqual(await slugs('search=VAULT'), [refs.vaultToken.slug, refs.vaultAppRole.slug].sort());
      assert.deepEqual(await slugs('search=100%25'), []);
      for (const [query, param] of [['manager_type=gcp', 'manager_type'], ['page_size=101', 'page_size'], ['current_page=-1', 'current_page'], ['tags=:x', 'tags'], ['search=', 'search']] as const) {
        await expectParam('GET', `/secret-references?${query}`, undefined, param);
      }
    });

    test('a workspace key reads the references its workspace may use, and writes none (403, audited)', async () => {
      const seenByA = await ok('GET', '/secret-references', undefined, keys.svcA.key);
      assert.equal(seenByA.total, 6);
      assert.ok(!seenByA.data.some((item: { id: string }) => item.id === refs.onlyB.id));
      assert.equal((await call('GET', `/secret-references/${refs.onlyB.slug}`, keys.svcA.key)).status, 404);
      const seenByB = await ok('GET', `/secret-references/${refs.onlyB.id}`, undefined, keys.svcB.key);
      assert.deepEqual([seenByB.allow_all_workspaces, seenByB.allowed_workspaces, seenByB.auth_config], [false, [B.id], { secret_value: MASK }]);
      assert.equal((await ok('GET', '/secret-references', undefined, keys.svcB.key)).total, 7);
      assert.deepEqual((await ok('GET', `/secret-references/${refs.onlyB.id}`)).allowed_workspaces, [B.id]);

      const denied = [
        await call('POST', '/secret-references', keys.svcA.key, { name: 'x', manager_type: 'env', secret_path: 'X' }),
        await call('PUT', `/secret-references/${refs.sealed.slug}`, keys.svcA.key, { name: 'renamed' }),
        await call('DELETE', `/secret-references/${refs.sealed.slug}`, keys.svcA.key),
      ];
      for (const response of denied) {
        assert.equal(response.status, 403);
        assert.equal(response.body.error.code, 'admin_key_required');
      }
      await audited('secret_references.create', 'denied');
      await audited('secret_references.update', 'denied');
      await audited('secret_references.delete', 'denied');
      assert.equal((await ok('GET', `/secret-references/${refs.sealed.slug}`)).name, 'Sealed');
    });

    test('every route needs its scope: 403 naming the scope', async () => {
      assert.equal((await ok('GET', '/secret-references', undefined, keys.listOnly.key)).total, 7);
      for (const [method, path, body] of [
        ['GET', `/secret-references/${refs.aws.slug}`, undefined],
        ['POST', '/secret-references', { name: 'x', manager_type: 'env', secret_path: 'X' }],
        ['PUT', `/secret-references/${refs.aws.slug}`, { name: 'x' }],
        ['DELETE', `/secret-references/${refs.aws.slug}`, undefined],
      ] as const) {
        const response = await call(method, path, keys.listOnly.key, body);
        assert.equal(response.status, 403, `${method} ${path}`);
        assert.equal(response.body.error.code, 'missing_scope');
        assert.match(response.body.error.message, /secret_references\.(read|create|update|delete)/);
      }
      assert.equal((await call('GET', '/secret-references', undefined)).status, 401);
    });

    test('update: fields change, a masked secret keeps its stored value, a new one replaces it', async () => {
      const created = await create({ name: 'To update', manager_type: 'hashicorp_vault', auth_config: AUTH.vault_token, secret_path: 'secret/a' });
      assert.deepEqual(await ok('PUT', `/secret-references/${created.slug}`, { name: 'Updated', description: 'rotated weekly', secret_path: 'secret/b', secret_key: 'k', tags: { team: 'x' } }), {});
      const cipher = createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex'));
      const sealedToken = async () => JSON.parse(cipher.open((await db().select().from(secretReferences).where(eq(secretReferences.id, created.id)))[0]!.sealedAuthConfig!)).vault_token;

      const read = await ok('GET', `/secret-references/${created.id}`);
      assert.deepEqual([read.name, read.description, read.secret_path, read.secret_key, read.tags], ['Updated', 'rotated weekly', 'secret/b', 'k', { team: 'x' }]);
      // the client sends back what it read, with the namespace changed: the token is kept
      await ok('PUT', `/secret-references/${created.id}`, { auth_config: { ...read.auth_config, vault_namespace: 'team-b' } });
      assert.equal(await sealedToken(), SECRETS.vaultToken);
      assert.equal((await ok('GET', `/secret-references/${created.id}`)).auth_config.vault_namespace, 'team-b');
      await ok('PUT', `/secret-references/${created.id}`, { auth_config: { ...AUTH.vault_token, vault_token: SECRETS.rotated } });
      assert.equal(await sealedToken(), SECRETS.rotated);
      // the mask cannot stand for a secret that was not stored under this auth type
      await expectParam('PUT', `/secret-references/${created.id}`, { auth_config: { ...AUTH.vault_approle, vault_secret_id: MASK } }, 'auth_config.vault_secret_id');
      await ok('PUT', `/secret-references/${created.id}`, { allowed_workspaces: [B.slug] });
      const restricted = await ok('GET', `/secret-references/${created.id}`);
      assert.deepEqual([restricted.allow_all_workspaces, restricted.allowed_workspaces], [false, [B.id]]);
      await ok('PUT', `/secret-references/${created.id}`, { description: null, secret_key: null, tags: null });
      const cleared = await ok('GET', `/secret-references/${created.id}`);
      assert.deepEqual([cleared.description, cleared.secret_key, cleared.tags], [null, null, null]);
      await audited('secret_references.update', 'success', created.id);
      const tables = JSON.stringify(await db().select().from(auditLogs));
      assert.ok(!tables.includes(SECRETS.rotated));
    });

    test('bad bodies and parameters are 400s naming the field, and leave nothing behind', async () => {
      const valid = { name: 'bad', manager_type: 'sealed', auth_config: { secret_value: 'x' } };
      const cases: Array<[unknown, string]> = [
        [{ manager_type: 'sealed', auth_config: { secret_value: 'x' } }, 'name'],
        [{ ...valid, manager_type: 'gcp_sm' }, 'manager_type'],
        [{ ...valid, auth_config: undefined }, 'auth_config'],
        [{ ...valid, auth_config: { secret_value: 5 } }, 'auth_config.secret_value'],
        [{ ...valid, auth_config: { secret_value: 'x', vault_token: 'y' } }, 'auth_config.vault_token'],
        [{ ...valid, auth_config: {} }, 'auth_config.secret_value'],
        [{ name: 'bad', manager_type: 'hashicorp_vault', auth_config: { vault_auth_type: 'token', vault_token: 't' }, secret_path: 'secret/x' }, 'auth_config.vault_addr'],
        [{ name: 'bad', manager_type: 'hashicorp_vault', auth_config: { vault_auth_type: 'token', vault_addr: 'https://user:pw@vault', vault_token: 't' }, secret_path: 'secret/x' }, 'auth_config.vault_addr'],
        [{ name: 'bad', manager_type: 'hashicorp_vault', auth_config: { vault_auth_type: 'ldap', vault_addr: 'https://vault' }, secret_path: 'secret/x' }, 'auth_config.vault_auth_type'],
        [{ name: 'bad', manager_type: 'hashicorp_vault', auth_config: AUTH.vault_token }, 'secret_path'],
        [{ name: 'bad', manager_type: 'env', secret_path: 'GATEWAY_ENCRYPTION_KEY' }, 'secret_path'],
        [{ ...valid, slug: 'bad slug' }, 'slug'],
        [{ ...valid, slug: MISSING }, 'slug'],
        [{ ...valid, organisation_id: MISSING }, 'organisation_id'],
        [{ ...valid, allow_all_workspaces: false }, 'allowed_workspaces'],
        [{ ...valid, allowed_workspaces: [] }, 'allowed_workspaces'],
        [{ ...valid, allowed_workspaces: ['no-such-workspace'] }, 'allowed_workspaces[0]'],
        [{ ...valid, tags: { team: 5 } }, 'tags.team'],
        [{ ...valid, secret_key: '' }, 'secret_key'],
        [{ ...valid, surprise: 1 }, 'surprise'],
      ];
      for (const [body, param] of cases) await expectParam('POST', '/secret-references', body, param);
      assert.equal((await db().select().from(secretReferences).where(eq(secretReferences.name, 'bad'))).length, 0, 'a refused create writes nothing');
      await expectParam('PUT', `/secret-references/${refs.sealed.slug}`, { manager_type: 'env' }, 'manager_type');
      await expectParam('PUT', `/secret-references/${refs.env.slug}`, { secret_path: 'DATABASE_URL' }, 'secret_path');
      await expectParam('GET', '/secret-references/bad%20id', undefined, 'secretReferenceId');
      const taken = await admin('POST', '/secret-references', { ...valid, slug: 'openai-aws' });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.error.code, 'secret_reference_slug_taken');
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await admin(method, `/secret-references/${MISSING}`, method === 'PUT' ? { name: 'y' } : undefined);
        assert.equal(response.status, 404, method);
        assert.equal(response.body.error.code, 'secret_reference_not_found');
      }
      await audited('secret_references.create', 'failed');
    });

    test('delete answers {}; a reference in use by an integration is refused with a 400 naming it', async () => {
      const used = await create({ name: 'Used', manager_type: 'sealed', auth_config: { secret_value: 'x' } });
      await db().insert(integrations).values({
        organisationId: gateway.gateway.bootstrap.organisation.id, slug: 'uses-secret', name: 'Uses a secret', aiProviderId: 'openai',
        secretMappings: [{ target_field: 'key', secret_reference_id: used.id }],
      });
      const refused = await admin('DELETE', `/secret-references/${used.slug}`);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'secret_reference_in_use');
      assert.match(refused.body.error.message, /integration uses-secret/);
      await db().delete(integrations).where(eq(integrations.slug, 'uses-secret'));
      assert.deepEqual(await ok('DELETE', `/secret-references/${used.slug}`), {});
      await audited('secret_references.delete', 'success', used.id);
      assert.equal((await admin('GET', `/secret-references/${used.id}`)).status, 404);
      assert.equal((await db().select().from(secretReferences).where(eq(secretReferences.id, used.id))).length, 0);
      // the slug is free again
      assert.equal((await create({ name: 'Used again', slug: used.slug, manager_type: 'env', secret_path: 'X' })).slug, used.slug);
    });
  });
}
