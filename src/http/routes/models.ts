/**
 * GET /v1/models: with no provider signal (provider, slug, virtual key or config) the integrated catalog;
 * with one, the provider's own models endpoint; `x-gateway-fetch-integrated-models: true` forces the catalog.
 */
import type { FastifyInstance } from 'fastify';
import { integratedModels, listCatalogModels, parseModelsQuery } from '../../catalog/catalog.ts';
import { hasProviderSignal } from '../../core/resolve-target.ts';
import { parseConfig } from '../../routing/config-schema.ts';
import { forward, gatewayHeadersOf, type ForwardDeps } from '../forward.ts';

/** The seed: a config's `fetch_integrated_models: true` works like the header. */
function configAsksForCatalog(raw: string | undefined): boolean {
  if (!raw) return false;
  const parsed = parseConfig(raw);
  return parsed.kind === 'inline' && parsed.config.fetch_integrated_models === true;
}

export function registerModelsRoute(app: FastifyInstance, deps: ForwardDeps): void {
  app.get('/v1/models', async (request, reply) => {
    const headers = gatewayHeadersOf(request, reply, deps);
    if (headers.fetchIntegratedModels === true || !hasProviderSignal(headers) || configAsksForCatalog(headers.config)) {
      const query = parseModelsQuery(request.query as Record<string, unknown>);
      reply.header('x-gateway-cache-status', 'DISABLED');
      return listCatalogModels(integratedModels, query);
    }
    await forward(request, reply, 'models', deps);
  });
}
