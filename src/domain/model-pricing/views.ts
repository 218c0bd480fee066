/**
 * Custom prices as the admin API shows them, and a model's effective price (what its requests pay, and where that
 * price comes from). Prices are the reference's ModelPricingConfig: USD cents per token.
 */
import type { ModelPricingConfig } from '../../pricing/model-price.ts';
import { pricingConfigOf } from '../../pricing/model-price.ts';
import type { ResolvedPrice } from '../../pricing/price-lookup.ts';
import type { ModelPriceRow } from '../../storage/repositories/model-prices.ts';
import type { ModelPath } from './access.ts';

/** A custom price as it was set (the prices given, none derived). */
export function modelPriceView(row: ModelPriceRow) {
  const pricing = row.pricing as Partial<ModelPricingConfig>;
  return {
    object: 'model_price' as const,
    id: row.id,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    provider: row.provider,
    model: row.model,
    pay_as_you_go: pricing.pay_as_you_go ?? {},
    currency: 'USD' as const,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * What requests of the scope pay for the model: the prices charged (cached input and cache writes at the input price
 * when not set, reasoning at the output price), and whether they come from a custom price of the workspace, of the
 * organisation, or from the catalog.
 */
export function effectivePriceView(path: ModelPath, resolved: ResolvedPrice, row: ModelPriceRow | undefined) {
  return {
    object: 'model_pricing' as const,
    provider: path.provider,
    model: path.model,
    source: resolved.source,
    id: row?.id ?? null,
    workspace_id: row?.workspaceId ?? null,
    ...pricingConfigOf(resolved.price),
  };
}
