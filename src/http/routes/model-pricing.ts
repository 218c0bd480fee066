/**
 * GET /model-configs/pricing/{provider}/{model} (api-surface §3.25): public, no key, outside /v1. The shipped
 * catalog's price of a model (src/pricing/catalog.json) as the reference's ModelPricingConfig, in USD cents per token
 * (the prices charged: cached input and cache writes at the input price where not listed, reasoning at the output
 * price). A caller's custom prices are private to its organisation: GET /v1/model-configs/pricing/... with a key.
 *
 * A model with no known price is a 404. The reference declares its body as `{error: string}`; the gateway answers
 * every error in one shape, `{error: {message, type, param, code}}` (docs/decisions.md): a client that checks for
 * `error` sees it either way, and every OpenAI-compatible client shows its message.
 */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.ts';
import { modelPathParams } from '../../domain/model-pricing/access.ts';
import { catalogPrice, shippedPricing } from '../../pricing/catalog.ts';
import { pricingConfigOf } from '../../pricing/model-price.ts';

export const PUBLIC_PRICING_PATH = '/model-configs/pricing';

export function registerModelPricingRoute(app: FastifyInstance): void {
  app.get(`${PUBLIC_PRICING_PATH}/:provider/*`, async (request) => {
    const path = modelPathParams(request.params);
    const listed = catalogPrice(shippedPricing, path.provider, path.model);
    if (!listed) throw notFound(`No price is known for ${path.provider}/${path.model}.`, 'model_pricing_not_found');
    return pricingConfigOf(listed.price);
  });
}
