/**
 * Which price a request pays, first found wins:
 *   1. a custom price of the caller's workspace (admin API, model_prices),
 *   2. a custom price of its organisation (model_prices without a workspace),
 *   3. the pricing_config of the model on the integration the request went through (integration_models),
 *   4. the shipped catalog (catalog.json).
 * A custom or integration price replaces the catalog's whole (a negotiated rate is a rate of its own): it is not
 * merged field by field. Where the rows come from is injected (src/domain/model-pricing/price-book.ts holds them in
 * process); this file only orders them.
 */
import { catalogPrice, type PricingCatalog } from './catalog.ts';
import type { ModelPrice } from './model-price.ts';

export type PriceSource = 'workspace' | 'organisation' | 'integration' | 'catalog';

export interface ResolvedPrice {
  price: ModelPrice;
  source: PriceSource;
}

export interface PriceQuery {
  provider: string;
  model: string;
  organisationId: string;
  /** null: the organisation's prices only */
  workspaceId: string | null;
  /** the integration a saved provider (`@slug`, a virtual key) points at */
  integrationId?: string | undefined;
}

export interface CustomPrices {
  workspace: ModelPrice | undefined;
  organisation: ModelPrice | undefined;
}

export interface PriceSources {
  custom(query: PriceQuery): Promise<CustomPrices>;
  integration(integrationId: string, model: string): Promise<ModelPrice | undefined>;
  catalog: PricingCatalog;
}

export async function resolvePrice(query: PriceQuery, sources: PriceSources): Promise<ResolvedPrice | undefined> {
  const custom = await sources.custom(query);
  if (custom.workspace) return { price: custom.workspace, source: 'workspace' };
  if (custom.organisation) return { price: custom.organisation, source: 'organisation' };
  if (query.integrationId) {
    const integration = await sources.integration(query.integrationId, query.model);
    if (integration) return { price: integration, source: 'integration' };
  }
  const listed = catalogPrice(sources.catalog, query.provider, query.model);
  return listed ? { price: listed.price, source: 'catalog' } : undefined;
}
