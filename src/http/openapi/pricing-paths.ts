/**
 * GET /model-configs/pricing/{provider}/{model} (src/http/routes/model-pricing.ts): public, outside /v1, like the
 * operations routes, so the path names its own server (`/`).
 */
import { ref } from './components.ts';
import { pathParameter } from './parameters.ts';
import { BAD_INPUT, errors, json } from './responses.ts';
import type { Paths } from './types.ts';

export function publicPricingPaths(): Paths {
  return {
    '/model-configs/pricing/{provider}/{model}': {
      servers: [{ url: '/', description: 'the gateway root, outside /v1' }],
      'x-gateway-wildcard-parameter': 'model',
      get: {
        operationId: 'getModelPricing',
        summary: 'The shipped price of a model',
        description: 'Public, no key. USD cents per token. The 404 is the gateway\'s one error shape (the reference declares `{error: string}`; a client that checks for `error` sees it either way).',
        tags: ['model-pricing'],
        security: [],
        parameters: [
          pathParameter('provider', 'a provider of the gateway', { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,63}$' }),
          pathParameter('model', 'the model; the rest of the path, slashes included', { type: 'string', minLength: 1, maxLength: 255 }),
        ],
        responses: {
          '200': json('the price', ref('ModelPricingConfig')),
          ...errors({ 400: BAD_INPUT, 404: 'no price is known for this provider and model' }),
        },
      },
    },
  };
}
