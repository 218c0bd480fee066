/**
 * Custom model prices (src/http/admin/model-pricing/routes.ts) under /v1, beside the public price at the root
 * (pricing-paths.ts). `{model}` is the rest of the path: a model name may hold slashes.
 */
import { listRef, ref } from '../components.ts';
import { WORKSPACE_FILTER, pageParameters, pathParameter, queryParameter } from '../parameters.ts';
import type { Paths } from '../types.ts';
import { adminOperation } from './operation.ts';

const TAG = 'model-pricing';
const PROVIDER = pathParameter('provider', 'a provider of the gateway, as x-gateway-provider names it', { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' });
const MODEL = pathParameter('model', 'the model, as requests name it; the rest of the path, slashes included', { type: 'string', minLength: 1, maxLength: 255 });
const SCOPE = queryParameter('workspace_id', 'the workspace (id or slug) whose price this is; absent: a workspace key\'s own workspace, organisation-wide for an admin key');
const NOT_FOUND = 'the workspace is not found or not visible, or no price is there';

export function modelPricingPaths(): Paths {
  return {
    '/model-pricing': {
      get: adminOperation({
        operationId: 'listModelPrices',
        summary: 'List custom model prices',
        tag: TAG,
        scope: 'model_pricing.list',
        description: 'A workspace key sees its workspace\'s prices and the organisation-wide ones.',
        parameters: [...pageParameters({ defaultSize: 100, maxSize: 1000 }), WORKSPACE_FILTER, queryParameter('provider', 'only this provider'), queryParameter('model', 'only this model')],
        answer: { description: 'the custom prices', schema: listRef('ModelPrice', 'custom model prices') },
        errors: { 404: 'the workspace_id filter names a workspace the caller cannot see' },
      }),
    },
    '/model-pricing/{provider}/{model}': {
      'x-gateway-wildcard-parameter': 'model',
      get: adminOperation({
        operationId: 'getEffectiveModelPricing',
        summary: 'The price requests pay for a model',
        tag: TAG,
        scope: 'model_pricing.read',
        description: 'A custom price of the workspace, else of the organisation, else the shipped catalog\'s.',
        parameters: [PROVIDER, MODEL, SCOPE],
        answer: { description: 'the price and where it comes from', schema: ref('EffectiveModelPricing') },
        errors: { 404: NOT_FOUND },
      }),
      put: adminOperation({
        operationId: 'setModelPrice',
        summary: 'Set a custom model price',
        tag: TAG,
        description: 'Creates (scope `model_pricing.create`) or replaces (scope `model_pricing.update`) the price of one model for a workspace, or organisation-wide (admin keys). Prices are USD cents per token, exact to 10 decimals; a custom price wins over an integration model\'s pricing_config and over the catalog.',
        parameters: [PROVIDER, MODEL],
        body: 'SetModelPriceRequest',
        answer: { description: 'the custom price', schema: ref('ModelPrice') },
        errors: { 404: 'the workspace is not found, or not visible to the caller' },
      }),
      delete: adminOperation({
        operationId: 'deleteModelPrice',
        summary: 'Remove a custom model price',
        tag: TAG,
        scope: 'model_pricing.delete',
        parameters: [PROVIDER, MODEL, SCOPE],
        answer: { description: 'removed', schema: ref('EmptyObject') },
        errors: { 404: NOT_FOUND },
      }),
    },
  };
}
