/**
 * Authentication of every /v1 request: `x-gateway-api-key` must name an active key. Runs in onRequest, before
 * the body is read and before any provider is contacted.
 */
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../core/context.ts';
import { invalidParam, unauthorized } from '../../core/errors.ts';
import { timesSent } from '../parse-gateway-headers.ts';

/** secret or token -> principal; null (or a 401 thrown) when it is not valid. Synchronous when cached. */
export type CredentialResolver = (secret: string) => Principal | null | Promise<Principal | null>;

/**
 * Paths under /v1 that need no gateway key: the invitee of an invite has none yet, and the API's description is
 * public at the base URL as at the root (/openapi.json).
 */
const PUBLIC_PATHS = new Set(['/v1/admin/users/invites/accept', '/v1/openapi.json']);

export function registerAuth(app: FastifyInstance, resolve: CredentialResolver): void {
  app.decorateRequest('principal', undefined);
  // A callback hook, not an async one: a cached key then authenticates without a promise or an extra tick.
  app.addHook('onRequest', (request, _reply, done) => {
    // The matched route decides too: the router decodes the path, so /%761/models is served by /v1/models.
    const route = request.routeOptions.url;
    if (!isV1(route) && !isV1(request.url)) return done();
    if (route !== undefined && PUBLIC_PATHS.has(route)) return done();
    const header = request.headers['x-gateway-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret) return done(unauthorized('Missing x-gateway-api-key header.', 'missing_api_key'));
    // Node joins a header sent twice with ", ": two keys are not one unknown key but a malformed request
    if (secret.includes(', ') && timesSent(request.raw.rawHeaders, 'x-gateway-api-key') > 1) {
      return done(invalidParam('x-gateway-api-key', 'Header x-gateway-api-key must be sent once.', 'repeated_header'));
    }
    let resolved: Principal | null | Promise<Principal | null>;
    try {
      resolved = resolve(secret.trim());
    } catch (error) {
      return done(error as Error);
    }
    const admit = (principal: Principal | null): void => {
      if (!principal) return done(unauthorized('Invalid, revoked or expired API key.', 'invalid_api_key'));
      request.principal = principal;
      done();
    };
    if (resolved instanceof Promise) resolved.then(admit, (error: Error) => done(error));
    else admit(resolved);
  });
}

function isV1(path: string | undefined): boolean {
  return path !== undefined && (path === '/v1' || path.startsWith('/v1/'));
}
