/**
 * The price book on every back-end: which price a request pays (custom price of the workspace, of the organisation,
 * the model's pricing_config on the integration it went through, the catalog), held in process until a change is
 * announced, and costOf as the usage limits call it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createPriceBook, type PriceBook } from '../../src/domain/model-pricing/price-book.ts';
import { usdText } from '../../src/pricing/money.ts';
import { integrationModels, integrations, modelPrices } from '../../src/storage/schema.ts';
import { adminClient } from '../helpers/admin-client.ts';
import { startBackendGateway } from '../helpers/backend-gateway.ts';
import { testBackends } from '../helpers/databases.ts';
import type { TestGateway } from '../helpers/gateway.ts';

const USAGE = { prompt: 5, completion: 2, total: 7 };

for (const backend of testBackends()) {
  describe(`price book on ${backend.name}`, () => {
    let gateway: TestGateway;
    let book: PriceBook;
    let integrationId: string;
    let brokenIntegrationId: string;
    const db = () => gateway.gateway.database.db;
    const org = () => gateway.gateway.bootstrap.organisation.id;
    const workspace = () => gateway.gateway.bootstrap.workspace.id;
    const cost = async (model: string, options: { integration?: string; workspace?: string | null } = {}) => {
      const picodollars = await book.costOf(USAGE, 'openai', model, org(), options.workspace === undefined ? workspace() : options.workspace, options.integration);
      return picodollars === null ? null : usdText(picodollars);
    };

    before(async () => {
      gateway = await startBackendGateway(backend);
      book = await createPriceBook(db(), gateway.gateway.kv);
      const inserted = await db().insert(integrations).values([
        { organisationId: org(), slug: 'negotiated', name: 'Negotiated', aiProviderId: 'openai' },
        { organisationId: org(), slug: 'broken', name: 'Broken', aiProviderId: 'openai' },
      ]).returning();
      [integrationId, brokenIntegrationId] = inserted.map((row) => row.id) as [string, string];
      await db().insert(integrationModels).values([
        { integrationId, slug: 'gpt-4o', pricingConfig: { type: 'static', pay_as_you_go: { request_token: { price: 0.0002 }, response_token: { price: 0.0004 } } } },
        { integrationId: brokenIntegrationId, slug: 'gpt-4o', pricingConfig: { type: 'static', pay_as_you_go: { request_token: { price: 'cheap' } } } },
      ]);
    });

    after(async () => {
      await book?.close();
      await gateway?.close();
    });

    test('the catalog, then the integration\'s pricing_config; an unusable stored price is skipped; no price is null', async () => {
      // gpt-4o: 5 x $2.50 + 2 x $10 per million; on the integration 5 x $0.000002 + 2 x $0.000004
      assert.equal(await cost('gpt-4o'), '0.000032500000');
      assert.equal((await book.resolve({ provider: 'openai', model: 'gpt-4o', organisationId: org(), workspaceId: workspace(), integrationId }))?.source, 'integration');
      assert.equal(await cost('gpt-4o', { integration: integrationId }), '0.000018000000');
      assert.equal(await cost('gpt-4o', { integration: brokenIntegrationId }), '0.000032500000');
      assert.equal(await cost('no-such-model'), null);
    });

    test('custom prices win over the integration, the workspace\'s over the organisation\'s; held until announced', async () => {
      const admin = adminClient(gateway.baseURL);
      const set = (body: Record<string, unknown>) => admin('PUT', '/model-pricing/openai/gpt-4o', gateway.adminKey, body);
      assert.equal((await set({ pay_as_you_go: { request_token: { price: 0.0001 }, response_token: { price: 0.0001 } } })).status, 200);
      assert.equal(await cost('gpt-4o', { integration: integrationId }), '0.000007000000', 'the organisation\'s custom price');
      assert.equal((await set({ workspace_id: workspace(), pay_as_you_go: { request_token: { price: 0 }, response_token: { price: 0.0005 } } })).status, 200);
      assert.equal(await cost('gpt-4o', { integration: integrationId }), '0.000010000000', 'the workspace\'s');
      assert.equal(await cost('gpt-4o', { workspace: null }), '0.000007000000', 'without a workspace: the organisation\'s');

      // a change nobody announces is not seen until the TTL: prices are not read per request
      await db().delete(modelPrices).where(eq(modelPrices.organisationId, org()));
      assert.equal(await cost('gpt-4o', { integration: integrationId }), '0.000010000000');
      await book.invalidate();
      assert.equal(await cost('gpt-4o', { integration: integrationId }), '0.000018000000');
    });
  });
}
