/**
 * Prices for the hot path: each (organisation, workspace, integration, provider, model) resolved once
 * (src/pricing/price-lookup.ts: custom price, integration model, catalog), then held in process and never read from
 * the database per request. A change of a custom price drops every node's copies at once
 * (src/kv/invalidated-cache.ts); the integrations group announces its pricing_config changes the same way.
 *
 * `costOf` is what the usage limits use: the estimate before a call (a usage built from the prompt's size and
 * max_tokens) and the real cost after it.
 */
import { announceInvalidation, createInvalidatedCache } from '../../kv/invalidated-cache.ts';
import type { KvStore } from '../../kv/store.ts';
import { shippedPricing, type PricingCatalog } from '../../pricing/catalog.ts';
import { costOfUsage, type BillableUsage } from '../../pricing/cost.ts';
import { storedPrice, type ModelPrice } from '../../pricing/model-price.ts';
import { resolvePrice, type CustomPrices, type PriceQuery, type PriceSources, type ResolvedPrice } from '../../pricing/price-lookup.ts';
import type { Db } from '../../storage/database.ts';
import { customPriceRows, integrationModelPricing } from '../../storage/repositories/model-prices.ts';

const CHANGED = 'model-prices.changed';

export interface PriceBook {
  resolve(query: PriceQuery): Promise<ResolvedPrice | undefined>;
  /**
   * The cost of `usage` in picodollars (10^-12 USD; src/pricing/money.ts), or null when no price is known (or the
   * usage says nothing). Never a float: add costs as bigints, show them with usdText().
   */
  costOf(usage: BillableUsage, provider: string, model: string, organisationId: string, workspaceId: string | null, integrationId?: string): Promise<bigint | null>;
  /** drops this node's copies now and tells the other nodes */
  invalidate(): Promise<void>;
  close(): Promise<void>;
}

/** Tells every node (this one included) that a custom price or an integration model's pricing_config changed. */
export async function announceModelPriceChange(kv: KvStore): Promise<void> {
  await announceInvalidation(kv, CHANGED);
}

/** The database as the lookup's sources. */
export function databaseSources(db: Db, catalog: PricingCatalog = shippedPricing): PriceSources {
  return {
    catalog,
    async custom(query): Promise<CustomPrices> {
      const rows = await customPriceRows(db, query);
      const pick = (workspaceId: string | null): ModelPrice | undefined => storedPrice(rows.find((row) => row.workspaceId === workspaceId)?.pricing);
      return { workspace: query.workspaceId === null ? undefined : pick(query.workspaceId), organisation: pick(null) };
    },
    async integration(integrationId, model) {
      const pricing = await integrationModelPricing(db, integrationId, model);
      return storedPrice(pricing);
    },
  };
}

export async function createPriceBook(db: Db, kv: KvStore, options: { ttlMs?: number; catalog?: PricingCatalog } = {}): Promise<PriceBook> {
  const cache = await createInvalidatedCache<ResolvedPrice | undefined>(kv, CHANGED, options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs });
  const sources = databaseSources(db, options.catalog);
  const resolve = (query: PriceQuery) => {
    const key = [query.organisationId, query.workspaceId ?? '', query.integrationId ?? '', query.provider, query.model].join('\u0000');
    return cache.get(key, () => resolvePrice(query, sources));
  };
  return {
    resolve,
    async costOf(usage, provider, model, organisationId, workspaceId, integrationId) {
      const resolved = await resolve({ provider, model, organisationId, workspaceId, integrationId });
      return resolved ? costOfUsage(usage, resolved.price) : null;
    },
    invalidate: () => cache.invalidate(),
    close: () => cache.close(),
  };
}
