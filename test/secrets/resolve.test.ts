/**
 * The resolver the providers inject, on every back-end: our own `sealed` and `env` types, workspace access
 * (allow_all_workspaces, allowed_workspaces), unknown and malformed references, and a change seen at once (the
 * cached row dropped over kv pub/sub, the value keyed by the reference's last change).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { environmentSecretRefusal, readEnvironmentSecret } from '../../src/config/environment-secrets.ts';
import { announceSecretReferenceChange } from '../../src/domain/secret-references/changes.ts';
import { deleteSecretReference, updateSecretReference } from '../../src/domain/secret-references/manage-secret-reference.ts';
import { createWorkspaceRow } from '../../src/storage/repositories/workspaces.ts';
import { testBackends } from '../helpers/databases.ts';
import { cipher, openResolverWorld, rejection, type ResolverWorld } from './resolver-world.ts';

for (const backend of testBackends()) {
  describe(`secret mapping resolver on ${backend.name}`, () => {
    let world: ResolverWorld;
    let other: string;

    before(async () => {
      world = await openResolverWorld(backend);
      other = (await createWorkspaceRow(world.database.db, { organisationId: world.organisationId, name: 'Other', slug: 'other' })).id;
    });

    after(async () => {
      await world?.close();
    });

    test('sealed: the value comes from the row; secret_key picks from a JSON value', async () => {
      const plain = await world.reference({ manager_type: 'sealed', auth_config: { secret_value: 'sk-sealed-1' } });
      const json = await world.reference({ manager_type: 'sealed', auth_config: { secret_value: '{"key":"sk-sealed-2"}' }, secret_key: 'key' });
      const resolve = await world.resolver();
      assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: plain.slug }), 'sk-sealed-1');
      assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: json.id }), 'sk-sealed-2');
      assert.ok(!String(plain.sealedAuthConfig).includes('sk-sealed-1'));
    });

    test('env: secret_path names a variable, read through the config accessor; the gateway\'s own settings are refused', async () => {
      const reference = await world.reference({ manager_type: 'env', secret_path: 'OPENAI_API_KEY' });
      const environment = { OPENAI_API_KEY: 'sk-env-1', GATEWAY_ENCRYPTION_KEY: 'must-not-leak' };
      const resolve = await world.resolver({ environment: (name) => readEnvironmentSecret(name, environment) });
      assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), 'sk-env-1');
      assert.equal(reference.sealedAuthConfig, null);

      const unset = await world.reference({ manager_type: 'env', slug: 'unset-variable', secret_path: 'NOT_SET_ANYWHERE' });
      const missing = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: unset.slug }));
      assert.equal(missing.status, 502);
      assert.equal(missing.body.error.code, 'secret_unavailable');
      assert.match(missing.body.error.message, /secret reference "unset-variable".*NOT_SET_ANYWHERE is not set/);

      for (const name of ['GATEWAY_ENCRYPTION_KEY', 'DATABASE_URL', 'REDIS_URL', 'PGPASSWORD', 'gateway_admin_api_key', '1BAD', 'A-B']) {
        const refused = await rejection(world.reference({ manager_type: 'env', secret_path: name }));
        assert.equal(refused.status, 400, name);
        assert.equal(refused.body.error.param, 'secret_path', name);
        assert.ok(environmentSecretRefusal(name));
        assert.equal(readEnvironmentSecret(name, { [name]: 'x' }), undefined);
      }
    });

    test('workspace access: allow_all_workspaces, or the listed workspaces only (403 for another)', async () => {
      const onlyOther = await world.reference({ manager_type: 'sealed', auth_config: { secret_value: 'sk-other' }, allowed_workspaces: ['other'] });
      assert.equal(onlyOther.allowAllWorkspaces, false);
      assert.deepEqual(onlyOther.allowedWorkspaces, [other]);
      const resolve = await world.resolver();
      assert.equal(await resolve(world.organisationId, other, { secret_reference_id: onlyOther.slug }), 'sk-other');
      const denied = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: onlyOther.slug }));
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'secret_reference_not_allowed');
      assert.ok(!JSON.stringify(denied.body).includes('sk-other'));
    });

    test('an unknown reference is a 400 naming it; a malformed id is refused before any lookup', async () => {
      const resolve = await world.resolver();
      const unknown = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: 'no-such-reference' }));
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'secret_reference_not_found');
      assert.match(unknown.body.error.message, /no-such-reference/);
      const malformed = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: 'bad\u0000id' }));
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error.param, 'secret_reference_id');
      const otherOrganisation = await rejection(resolve('00000000-0000-4000-8000-000000000000', world.workspaceId, { secret_reference_id: 'no-such-reference' }));
      assert.equal(otherOrganisation.status, 400);
    });

    test('an update and a delete are seen at once, cached values notwithstanding', async () => {
      const reference = await world.reference({ manager_type: 'sealed', auth_config: { secret_value: 'sk-before' } });
      const resolve = await world.resolver();
      assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), 'sk-before');
      await updateSecretReference(world.database.db, world.admin, reference.slug, { auth_config: { secret_value: 'sk-after' } }, cipher);
      await announceSecretReferenceChange(world.kv);
      assert.equal(await resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }), 'sk-after');
      await deleteSecretReference(world.database.db, world.admin, reference.slug);
      await announceSecretReferenceChange(world.kv);
      const gone = await rejection(resolve(world.organisationId, world.workspaceId, { secret_reference_id: reference.slug }));
      assert.equal(gone.status, 400);
    });
  });
}
