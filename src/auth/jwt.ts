/**
 * JWT authentication, the alternative to an API key in `x-gateway-api-key`. A token is accepted when its
 * organisation has a JWKS configured (`settings.jwt.jwks_url`, or GATEWAY_JWKS_URL for the bootstrap organisation).
 * The signature is checked against the JWKS (keys cached, refetched on an unknown `kid` after a cool-down, so key
 * rotation works), and `exp`, `nbf`, `iss` and `aud` when configured. `alg: none` never verifies.
 *
 * Claims (docs/admin-api.md): `sub` = the gateway user's id (or `email` = the user's email), `workspace_id` = the
 * workspace acted in (id or slug; absent: organisation level), `scope` (space-separated) or `scopes` (array),
 * optional `organisation_id`.
 */
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { Agent, request } from 'undici';
import { GatewayError, unauthorized } from '../core/errors.ts';
import { checkCustomHost, guardedLookup, type Allowlist } from '../upstream/ssrf-guard.ts';

export interface JwtSettings {
  jwksUrl: string;
  issuer?: string | undefined;
  audience?: string | undefined;
  /** true for an admin-configured URL: fetched through the SSRF guard; false for the operator's env URL */
  guarded: boolean;
}

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export function looksLikeJwt(value: string): boolean {
  return value.startsWith('eyJ') && value.split('.').length === 3;
}

export interface JwtVerifier {
  verify(token: string, settings: JwtSettings): Promise<JWTPayload>;
  close(): Promise<void>;
}

/** cooldownMs: how soon after a fetch an unknown `kid` may trigger another (tests use 0). */
export function createJwtVerifier(options: { allowlist: Allowlist; cooldownMs?: number }): JwtVerifier {
  const plain = new Agent({ keepAliveTimeout: 10_000 });
  const guarded = new Agent({ keepAliveTimeout: 10_000, connect: { lookup: guardedLookup(options.allowlist) } });
  const sets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  function keySet(settings: JwtSettings) {
    const cacheKey = `${settings.guarded ? 'g' : 'p'}:${settings.jwksUrl}`;
    let set = sets.get(cacheKey);
    if (!set) {
      const dispatcher = settings.guarded ? guarded : plain;
      set = createRemoteJWKSet(new URL(settings.jwksUrl), {
        timeoutDuration: 5_000,
        cooldownDuration: options.cooldownMs ?? 30_000,
        cacheMaxAge: 600_000,
        [customFetch]: async (url, init) => {
          if (settings.guarded) await checkCustomHost(url, options.allowlist);
          const response = await request(url, { method: 'GET', signal: init.signal, dispatcher, headers: { accept: 'application/json' } });
          const body = await response.body.text();
          return new Response(body, { status: response.statusCode, headers: { 'content-type': 'application/json' } });
        },
      });
      sets.set(cacheKey, set);
    }
    return set;
  }

  return {
    async verify(token, settings) {
      try {
        const { payload } = await jwtVerify(token, keySet(settings), {
          algorithms: ALGORITHMS,
          clockTolerance: 5,
          ...(settings.issuer ? { issuer: settings.issuer } : {}),
          ...(settings.audience ? { audience: settings.audience } : {}),
        });
        if (typeof payload.exp !== 'number') throw unauthorized('The token has no expiry (exp).', 'invalid_token');
        return payload;
      } catch (error) {
        if (error instanceof GatewayError && error.status === 401) throw error;
        if (error instanceof joseErrors.JWTExpired) throw unauthorized('The token has expired.', 'token_expired');
        if (error instanceof joseErrors.JOSEError) throw unauthorized(`Invalid token: ${error.code}.`, 'invalid_token');
        // the JWKS could not be fetched (unreachable, blocked, not JSON): the token cannot be trusted
        throw unauthorized('The token could not be verified: the key set is unavailable.', 'jwks_unavailable');
      }
    },
    async close() {
      await Promise.all([plain.close(), guarded.close()]);
    },
  };
}
