/**
 * Microsoft Entra ID for Azure OpenAI and Azure AI inference: with `azure_auth_mode: entra` and an application's
 * client credentials (tenant id, client id, client secret), the gateway gets the access token itself, with the
 * client credentials grant (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow):
 * `POST {authority}/{tenant}/oauth2/v2.0/token` with the Cognitive Services scope, sent to Azure as
 * `Authorization: Bearer <token>` in place of an `api-key`
 * (https://learn.microsoft.com/azure/ai-services/openai/how-to/managed-identity).
 *
 * - The authority is https://login.microsoftonline.com unless `azure_authority_host` names another (a sovereign
 *   cloud); either way it goes through the SSRF guard (shared/credential-endpoint.ts).
 * - Tokens are held per credential until 60 s before they expire (shared/credential-cache.ts), one cache per
 *   adapter instance; concurrent requests share one fetch.
 * - Azure answering 401 to a held token (revoked before it expired: a disabled application, a revoked secret,
 *   continuous access evaluation) drops it, and the request is sent once more with a fresh one (`credentialRefused`);
 *   when Entra then refuses the secret itself, that is the 401 naming Entra. Never more than one retry.
 * - Entra mode without client credentials keeps the old meaning: the client's bearer is the Entra token.
 * - Managed identity needs the Azure instance metadata service, which a gateway outside Azure does not have: it is
 *   refused with a 400 (auth.ts), never tried.
 */
import { GatewayError, badGateway, invalidParam } from '../../core/errors.ts';
import type { PrepareContext, ProviderAdapter, ProviderTarget, UpstreamRequest } from '../contract.ts';
import { createCredentialCache, type CredentialCache } from '../shared/credential-cache.ts';
import { postCredentialRequest } from '../shared/credential-endpoint.ts';
import { authModeOf } from './auth.ts';

export const DEFAULT_AUTHORITY = 'https://login.microsoftonline.com';
/** the audience of Azure OpenAI and Azure AI services data-plane tokens */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

const FIELDS = {
  tenant: 'azure-entra-tenant-id',
  client: 'azure-entra-client-id',
  secret: 'azure-entra-client-secret',
} as const;

export interface EntraCredentials {
  authority: string;
  tenant: string;
  clientId: string;
  clientSecret: string;
}

const header = (key: string) => `x-gateway-${key}`;

/** The client credentials the settings hold; undefined when none; a 400 naming the first missing one when partial. */
export function entraCredentials(cloud: Readonly<Record<string, string>>): EntraCredentials | undefined {
  const given = Object.values(FIELDS).filter((key) => cloud[key]);
  if (given.length === 0) return undefined;
  const missing = Object.values(FIELDS).find((key) => !cloud[key]);
  if (missing) {
    throw invalidParam(header(missing), `Entra client credentials need ${Object.values(FIELDS).map(header).join(', ')}: ${header(missing)} is missing.`, 'missing_header');
  }
  const authority = (cloud['azure-authority-host'] ?? DEFAULT_AUTHORITY).replace(/\/+$/, '');
  return { authority, tenant: cloud[FIELDS.tenant]!, clientId: cloud[FIELDS.client]!, clientSecret: cloud[FIELDS.secret]! };
}

function tokenFailed(status: number, text: string): GatewayError {
  let detail = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    detail = [body.error, body.error_description].filter((part) => typeof part === 'string').join(': ') || detail;
  } catch {
    // not JSON: the text is the detail
  }
  const message = `Microsoft Entra ID refused the client credentials (${status}): ${detail}`;
  return status >= 500
    ? badGateway(message, 'azure_entra_token_failed')
    : new GatewayError(401, 'authentication_error', message, { code: 'azure_entra_token_failed' });
}

async function fetchToken(credentials: EntraCredentials, context: PrepareContext | undefined, now: () => number) {
  const answer = await postCredentialRequest(
    {
      url: `${credentials.authority}/${encodeURIComponent(credentials.tenant)}/oauth2/v2.0/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        scope: COGNITIVE_SERVICES_SCOPE,
      }).toString(),
      param: header('azure-authority-host'),
      service: 'Microsoft Entra ID',
      failureCode: 'azure_entra_token_failed',
    },
    context,
  );
  if (answer.status !== 200) throw tokenFailed(answer.status, answer.text);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    throw badGateway('Microsoft Entra ID answered with a body that is not JSON.', 'azure_entra_token_failed');
  }
  // Entra sends expires_in as a number; older endpoints as a string
  const lifetimeS = Number(body.expires_in);
  if (typeof body.access_token !== 'string' || !Number.isFinite(lifetimeS)) {
    throw badGateway('Microsoft Entra ID answered without access_token and expires_in.', 'azure_entra_token_failed');
  }
  return { value: body.access_token, expiresAt: now() + lifetimeS * 1000 };
}

export interface EntraAuth {
  /** the request with an Entra bearer in place of any api-key, when the target holds client credentials */
  prepare(request: UpstreamRequest, target: ProviderTarget, context?: PrepareContext): Promise<UpstreamRequest>;
  /** Azure refused the request `prepare` made (401): its token is dropped; true when it was the one held */
  refused(request: UpstreamRequest, target: ProviderTarget): boolean;
}

const partsOf = (credentials: EntraCredentials) => ['entra', credentials.authority, credentials.tenant, credentials.clientId, credentials.clientSecret];

export function createEntraAuth(options: { now: () => number; tokens?: CredentialCache<string> }): EntraAuth {
  const tokens = options.tokens ?? createCredentialCache<string>({ now: options.now });
  return {
    async prepare(request, target, context) {
      if (authModeOf(target) !== 'entra') return request;
      const credentials = entraCredentials(target.cloud);
      if (!credentials) return request;
      const token = await tokens.get(partsOf(credentials), () => fetchToken(credentials, context, options.now), context?.signal);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (name.toLowerCase() !== 'api-key' && name.toLowerCase() !== 'authorization') headers[name] = value;
      }
      headers.authorization = `Bearer ${token}`;
      return { ...request, headers };
    },
    refused(request, target) {
      if (authModeOf(target) !== 'entra') return false;
      const credentials = entraCredentials(target.cloud);
      if (!credentials) return false;
      const sent = request.headers.authorization;
      return tokens.drop(partsOf(credentials), (token) => sent === `Bearer ${token}`);
    },
  };
}

/** The adapter with Entra client credentials honoured in `prepare` (after its own prepare, if it has one). */
export function withEntraAuth(adapter: ProviderAdapter, auth: EntraAuth): ProviderAdapter {
  const own = adapter.prepare?.bind(adapter);
  return {
    ...adapter,
    async prepare(request, target, context) {
      const prepared = own ? await own(request, target, context) : request;
      return auth.prepare(prepared, target, context);
    },
    credentialRefused: (request, target) => auth.refused(request, target),
  };
}
