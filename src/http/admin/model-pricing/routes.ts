/**
 * Custom model prices (the seed: "for custom models the pricing must be added"), a group named like its scopes
 * (`model_pricing.*`) and in the same shapes as the public `GET /model-configs/pricing/{provider}/{model}`:
 *   GET    /v1/model-pricing                        custom prices the caller can see
 *   GET    /v1/model-pricing/{provider}/{model}     the price requests pay, and where it comes from
 *   PUT    /v1/model-pricing/{provider}/{model}     set a custom price (a workspace's, or organisation-wide)
 *   DELETE /v1/model-pricing/{provider}/{model}     remove it
 * Not /v1/model-configs/pricing/...: that would be the public path under /v1 with another meaning (and one OpenAPI
 * path cannot hold the public GET and the keyed one). `{model}` is the rest of the path: names may hold slashes.
 */
import type { FastifyInstance } from 'fastify';
import { modelPathParams, requireSomeSetScope } from '../../../domain/model-pricing/access.ts';
import { removeModelPrice } from '../../../domain/model-pricing/delete-model-price.ts';
import { announceModelPriceChange } from '../../../domain/model-pricing/price-book.ts';
import { listModelPricesFor, readEffectivePrice } from '../../../domain/model-pricing/read-model-prices.ts';
import { setModelPrice } from '../../../domain/model-pricing/set-model-price.ts';
import { effectivePriceView, modelPriceView } from '../../../domain/model-pricing/views.ts';
import { adminRoute, type AdminDeps } from '../admin-route.ts';
import { listBody, optionalString, pageParams } from '../params.ts';
import { validateSetModelPrice } from './schemas.ts';

const RESOURCE = 'model_price';
export const MODEL_PRICING_PATH = '/v1/model-pricing';

export function registerModelPricingRoutes(app: FastifyInstance, deps: AdminDeps): void {
  // every node drops its held prices: this one and the others over pub/sub
  const changed = () => announceModelPriceChange(deps.kv);
  const scopeOf = (query: unknown) => ({ workspace: optionalString(query, 'workspace_id') });

  app.get(MODEL_PRICING_PATH, adminRoute(deps, { action: 'model_pricing.list', resourceType: RESOURCE, scope: 'model_pricing.list', mutation: false }, async (ctx) => {
    const page = pageParams(ctx.request.query, { defaultSize: 100, maxSize: 1000 });
    const query = ctx.request.query;
    const filter = { ...scopeOf(query), provider: optionalString(query, 'provider'), model: optionalString(query, 'model') };
    const { total, rows } = await listModelPricesFor(ctx.db, ctx.principal, filter, page);
    return { body: listBody(total, rows.map(modelPriceView)) };
  }));

  app.get(`${MODEL_PRICING_PATH}/:provider/*`, adminRoute(deps, { action: 'model_pricing.read', resourceType: RESOURCE, scope: 'model_pricing.read', mutation: false }, async (ctx) => {
    const path = modelPathParams(ctx.request.params);
    const { resolved, row } = await readEffectivePrice(ctx.db, ctx.principal, path, scopeOf(ctx.request.query));
    return { body: effectivePriceView(path, resolved, row), resourceId: row?.id ?? null, workspaceId: row?.workspaceId ?? null };
  }));

  app.put(`${MODEL_PRICING_PATH}/:provider/*`, adminRoute(deps, { action: 'model_pricing.update', resourceType: RESOURCE, mutation: true }, async (ctx) => {
    requireSomeSetScope(ctx.principal);
    const path = modelPathParams(ctx.request.params);
    const body = validateSetModelPrice(ctx.request.body);
    const { row } = await setModelPrice(ctx.db, ctx.principal, path, body);
    return { body: modelPriceView(row), resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));

  app.delete(`${MODEL_PRICING_PATH}/:provider/*`, adminRoute(deps, { action: 'model_pricing.delete', resourceType: RESOURCE, scope: 'model_pricing.delete', mutation: true }, async (ctx) => {
    const path = modelPathParams(ctx.request.params);
    const row = await removeModelPrice(ctx.db, ctx.principal, path, scopeOf(ctx.request.query));
    return { body: {}, resourceId: row.id, workspaceId: row.workspaceId, afterCommit: changed };
  }));
}
