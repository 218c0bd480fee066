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
    if (!request.url.startsWith('/v1/') && request.url !== '/v1') return;
    const header = request.headers['x-gateway-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret) throw unauthorized('Missing x-gateway-api-key header.', 'missing_api_key');
    const principal = await keys.resolve(secret.trim());
    if (!principal) throw unauthorized('Invalid, revoked or expired API key.', 'invalid_api_key');
    request.principal = principal;
  });
}
