/**
 * GET /v1/models: with no provider signal (provider, slug, virtual key or config) the integrated catalog;
 * with one, the provider's own models endpoint; `x-gateway-fetch-integrated-models: true` forces the catalog.
 */
import type { FastifyInstance } from 'fastify';
import { integratedModels, listCatalogModels, parseModelsQuery } from '../../catalog/catalog.ts';
import { hasProviderSignal } from '../../pipeline/resolve-target.ts';
import type { Principal } from '../../core/context.ts';
import { configForRequest } from '../../domain/configs/saved-configs.ts';
import { forward, gatewayHeadersOf, type ForwardDeps } from '../forward.ts';
import { refuseRepeatedQuery } from '../input-rules.ts';

/** single-valued, for the catalog and for the provider's models endpoint alike (the query is forwarded as written) */
const MODELS_PARAMETERS: ReadonlySet<string> = new Set(['provider', 'ai_service', 'limit', 'offset', 'sort', 'order']);

/** The seed: a config's `fetch_integrated_models: true` works like the header, for a saved config too. */
async function configAsksForCatalog(raw: string | undefined, principal: Principal | undefined, deps: ForwardDeps): Promise<boolean> {
  if (!raw) return false;
  const requested = await configForRequest(raw, principal, deps.savedConfigs, {});
  return requested?.config.fetch_integrated_models === true;
}

export function registerModelsRoute(app: FastifyInstance, deps: ForwardDeps): void {
  app.get('/v1/models', { config: { routeKind: 'models' } }, async (request, reply) => {
    const headers = gatewayHeadersOf(request, reply, deps);
    refuseRepeatedQuery(request.query, MODELS_PARAMETERS);
    if (headers.fetchIntegratedModels === true || !hasProviderSignal(headers) || (await configAsksForCatalog(headers.config, request.principal, deps))) {
      const query = parseModelsQuery(request.query as Record<string, unknown>);
      reply.header('x-gateway-cache-status', 'DISABLED');
      return listCatalogModels(integratedModels, query);
    }
    await forward(request, reply, { route: 'models', body: undefined }, deps);
  });
}
