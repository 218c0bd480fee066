/**
 * GET /v1/models: with no provider signal (provider, slug, virtual key or config) the integrated catalog;
 * with one, the provider's own models endpoint; `x-gateway-fetch-integrated-models: true` forces the catalog.
 */
import type { FastifyInstance } from 'fastify';
import { integratedModels, listCatalogModels, parseModelsQuery } from '../../catalog/catalog.ts';
import { hasProviderSignal } from '../../core/resolve-target.ts';
import { forward, gatewayHeadersOf, type ForwardDeps } from '../forward.ts';

export function registerModelsRoute(app: FastifyInstance, deps: ForwardDeps): void {
  app.get('/v1/models', async (request, reply) => {
    const headers = gatewayHeadersOf(request, reply, deps);
    if (headers.fetchIntegratedModels === true || !hasProviderSignal(headers)) {
      const query = parseModelsQuery(request.query as Record<string, unknown>);
      reply.header('x-gateway-cache-status', 'DISABLED');
      return listCatalogModels(integratedModels, query);
    }
    await forward(request, reply, 'models', deps);
  });
}
