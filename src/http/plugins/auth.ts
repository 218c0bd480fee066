/**
 * Authentication of every /v1 request: `x-gateway-api-key` must name an active key. Runs in onRequest, before
 * the body is read and before any provider is contacted.
 */
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../core/context.ts';
import { unauthorized } from '../../core/errors.ts';

/** secret or token -> principal; null (or a 401 thrown) when it is not valid */
export type CredentialResolver = (secret: string) => Promise<Principal | null>;

/** Paths under /v1 that need no gateway key (the invitee of an invite has none yet). */
const PUBLIC_PATHS = new Set(['/v1/admin/users/invites/accept']);

export function registerAuth(app: FastifyInstance, resolve: CredentialResolver): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    // The matched route decides too: the router decodes the path, so /%761/models is served by /v1/models.
    const route = request.routeOptions.url;
    const isV1 = (path: string | undefined) => path !== undefined && (path === '/v1' || path.startsWith('/v1/'));
    if (!isV1(route) && !isV1(request.url)) return;
    if (route !== undefined && PUBLIC_PATHS.has(route)) return;
    const header = request.headers['x-gateway-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret) throw unauthorized('Missing x-gateway-api-key header.', 'missing_api_key');
    const principal = await resolve(secret.trim());
    if (!principal) throw unauthorized('Invalid, revoked or expired API key.', 'invalid_api_key');
    request.principal = principal;
  });
}
