/**
 * Credentials inside saved configs are sealed at rest (AES-256-GCM with GATEWAY_ENCRYPTION_KEY), reach the
 * provider opened, and are never shown back: the admin API masks them, and a masked value sent back is a 400.
 * On every back-end: PGlite, and the real PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { GatewayError } from '../../src/core/errors.ts';
import { createSavedConfigs } from '../../src/domain/configs/saved-configs.ts';
import { createSecretCipher } from '../../src/secrets/cipher.ts';
import { configVersions } from '../../src/storage/schema.ts';
import { startFakeUpstream, type FakeUpstream } from '../fakes/openai-upstream.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { testBackends } from '../helpers/databases.ts';
import { startTestGateway, TEST_ENCRYPTION_KEY, type TestGateway } from '../helpers/gateway.ts';

const PROVIDER_KEY = 'sk-provider-very-secret-0001';

for (const backend of testBackends()) {
  describe(`config secrets on ${backend.name}`, () => {
    let upstream: FakeUpstream;
    let gateway: TestGateway;
    let call: ReturnType<typeof adminClient>;
    let drop: () => Promise<void> = async () => {};

    before(async () => {
      upstream = await startFakeUpstream();
      const created = await backend.create();
      drop = created.drop;
      gateway = await startTestGateway(created.url ? { databaseUrl: created.url } : {});
      call = adminClient(gateway.baseURL);
    });

    after(async () => {
      await gateway.close();
      await upstream.close();
      await drop();
    });

    test('the provider key is sealed in the database, opened for the request and masked in every admin answer', async () => {
      const config = { provider: 'openai', api_key: PROVIDER_KEY, custom_host: upstream.baseUrl };
      const created = await call('POST', '/configs', gateway.adminKey, { name: 'Sealed', config });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const { id, slug } = created.body.data as { id: string; slug: string };

      const rows = await gateway.gateway.database.db.select().from(configVersions).where(eq(configVersions.configId, id));
      assert.equal(rows.length, 1);
      const stored = JSON.stringify(rows[0]!.config);
      assert.doesNotMatch(stored, /sk-provider-very-secret/, 'no plain key at rest');
      const sealed = (rows[0]!.config as { api_key: string }).api_key;
      assert.equal(createSecretCipher(Buffer.from(TEST_ENCRYPTION_KEY, 'hex')).open(sealed), PROVIDER_KEY);

      const openai = new OpenAI({ apiKey: 'sk-client', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': slug } });
      const answer = await openai.chat.completions.create({ model: 'good', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(answer.choices[0]!.message.content, 'Hello world');
      assert.equal(upstream.requests.at(-1)!.headers.authorization, `Bearer ${PROVIDER_KEY}`, 'the config\'s key reached the provider');

      const read = await call('GET', `/configs/${slug}`, gateway.adminKey);
      assert.equal(read.body.data.config.api_key, '********');
      const versions = await call('GET', `/configs/${slug}/versions`, gateway.adminKey);
      assert.doesNotMatch(JSON.stringify(versions.body), /sk-provider-very-secret|enc:v\d:/);
      const audit = await call('GET', `/audit-logs?action=configs.create`, gateway.adminKey);
      assert.doesNotMatch(JSON.stringify(audit.body), /sk-provider-very-secret/);
    });

    test('a node with another encryption key says so (500 secret_unreadable) instead of sending a garbled key', async () => {
      const created = await call('POST', '/configs', gateway.adminKey, { name: 'Keyed', config: { provider: 'openai', api_key: PROVIDER_KEY, custom_host: upstream.baseUrl } });
      const { slug } = created.body.data as { slug: string };
      const otherNode = await createSavedConfigs(gateway.gateway.database.db, gateway.gateway.kv, { secrets: createSecretCipher(Buffer.alloc(32, 9)) });
      try {
        const organisationId = gateway.gateway.bootstrap.organisation.id;
        await assert.rejects(otherNode.resolve(organisationId, organisationId, slug), (error: unknown) => {
          assert.ok(error instanceof GatewayError);
          assert.equal(error.status, 500);
          assert.equal(error.code, 'secret_unreadable');
          assert.match(error.message, /GATEWAY_ENCRYPTION_KEY/);
          return true;
        });
      } finally {
        await otherNode.close();
      }
    });

    test('a masked key sent back keeps the sealed one; a mask where none is stored is a 400 naming it; a PUT without config keeps the key', async () => {
      const created = await call('POST', '/configs', gateway.adminKey, {
        name: 'Fallback',
        config: { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: PROVIDER_KEY, custom_host: upstream.baseUrl }] },
      });
      const { slug } = created.body.data as { slug: string };
      const read = await call('GET', `/configs/${slug}`, gateway.adminKey);
      const config = read.body.data.config as { targets: Array<Record<string, unknown>> };
      assert.equal(config.targets[0]!.api_key, '********');
      const echoed = await call('PUT', `/configs/${slug}`, gateway.adminKey, { config });
      assert.equal(echoed.status, 200, JSON.stringify(echoed.body));
      const unmatched = await call('PUT', `/configs/${slug}`, gateway.adminKey, { config: { ...config, targets: [...config.targets, { provider: 'openai', api_key: '********' }] } });
      assert.equal(unmatched.status, 400);
      assert.equal(unmatched.body.error.param, 'config.targets[1].api_key');

      const renamed = await call('PUT', `/configs/${slug}`, gateway.adminKey, { name: 'Renamed' });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      const openai = new OpenAI({ apiKey: 'sk-client', baseURL: gateway.baseURL, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': gateway.adminKey, 'x-gateway-config': slug } });
      await openai.chat.completions.create({ model: 'good', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(upstream.requests.at(-1)!.headers.authorization, `Bearer ${PROVIDER_KEY}`);
    });
  });
}
