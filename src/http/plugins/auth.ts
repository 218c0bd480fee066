/**
 * Authentication of every /v1 request: `x-gateway-api-key` must name an active key. Runs in onRequest, before
 * the body is read and before any provider is contacted.
 */
import type { FastifyInstance } from 'fastify';
import type { KeyResolver } from '../../auth/key-resolver.ts';
import { unauthorized } from '../../core/errors.ts';

export function registerAuth(app: FastifyInstance, keys: KeyResolver): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    // The matched route decides too: the router decodes the path, so /%761/models is served by /v1/models.
    const route = request.routeOptions.url;
    const isV1 = (path: string | undefined) => path !== undefined && (path === '/v1' || path.startsWith('/v1/'));
    if (!isV1(route) && !isV1(request.url)) return;
    const header = request.headers['x-gateway-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret) throw unauthorized('Missing x-gateway-api-key header.', 'missing_api_key');
    const principal = await keys.resolve(secret.trim());
    if (!principal) throw unauthorized('Invalid, revoked or expired API key.', 'invalid_api_key');
    request.principal = principal;
  });
}
