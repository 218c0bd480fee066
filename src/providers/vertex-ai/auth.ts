/**
 * Vertex AI credentials: a service account key exchanged for an OAuth access token.
 * https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests (JWT bearer grant)
 * https://cloud.google.com/iam/docs/keys-create-delete (the key file: client_email, private_key, token_uri)
 *
 * Invariants:
 * - the token_uri comes from the client, so it is a custom host: checked with the operator's allowlist
 *   (`checkCustomHost`) and connected through `guardedLookup`, exactly like x-gateway-custom-host;
 * - tokens are held per key (client email, private key and token_uri hashed together, so a caller who only
 *   knows an account's email can never be served another caller's token) until 60 s before they expire, in the
 *   shared credential cache (shared/credential-cache.ts): concurrent requests with the same key share one token
 *   fetch; a failed fetch is not kept.
 */
import { SignJWT, importPKCS8 } from 'jose';
import { Agent, request } from 'undici';
import { GatewayError, badGateway, invalidParam, isGatewayError } from '../../core/errors.ts';
import type { PrepareContext } from '../contract.ts';
import { createCredentialCache, type Expiring } from '../shared/credential-cache.ts';
import { recordOf } from '../shared/json.ts';
import { CUSTOM_HOST_BLOCKED_CODE, checkCustomHost, guardedLookup, parseAllowlist } from '../../upstream/ssrf-guard.ts';

export const SERVICE_ACCOUNT_HEADER = 'x-gateway-vertex-service-account-json';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const ASSERTION_LIFETIME_S = 3600;
const FETCH_TIMEOUT_MS = 30_000;

export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

function invalidKey(message: string): GatewayError {
  return invalidParam(SERVICE_ACCOUNT_HEADER, message, 'invalid_service_account');
}

/** The header holds the key file as raw JSON or as base64 of it. */
export function parseServiceAccount(value: string): ServiceAccountKey {
  const text = value.trimStart().startsWith('{') ? value : Buffer.from(value, 'base64').toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidKey(`${SERVICE_ACCOUNT_HEADER} must be a service account key file, as JSON or base64 of the JSON.`);
  }
  const key = recordOf(json);
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string') {
    throw invalidKey('The service account key needs client_email and private_key.');
  }
  return {
    clientEmail: key.client_email,
    privateKey: key.private_key,
    privateKeyId: typeof key.private_key_id === 'string' ? key.private_key_id : undefined,
    tokenUri: typeof key.token_uri === 'string' ? key.token_uri : DEFAULT_TOKEN_URI,
  };
}

export interface TokenSource {
  accessToken(key: ServiceAccountKey, context: PrepareContext | undefined): Promise<string>;
}

async function signAssertion(key: ServiceAccountKey, nowMs: number): Promise<string> {
  let privateKey: CryptoKey;
  try {
    privateKey = await importPKCS8(key.privateKey, 'RS256');
  } catch {
    throw invalidKey('The service account private_key is not a PKCS#8 PEM RSA key.');
  }
  const issuedAt = Math.floor(nowMs / 1000);
  return new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) })
    .setIssuer(key.clientEmail)
    .setAudience(key.tokenUri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_S)
    .sign(privateKey);
}

function exchangeFailed(status: number, body: string): GatewayError {
  let detail = body.slice(0, 500);
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (typeof json.error_description === 'string') detail = json.error_description;
    else if (typeof json.error === 'string') detail = json.error;
  } catch {
    // not JSON: the text itself is the detail
  }
  const message = `Vertex AI: the service account token exchange failed (${status}): ${detail}`;
  return status >= 500
    ? badGateway(message, 'vertex_token_exchange_failed')
    : new GatewayError(401, 'authentication_error', message, { code: 'vertex_token_exchange_failed' });
}

async function fetchToken(key: ServiceAccountKey, context: PrepareContext | undefined, nowMs: number): Promise<Expiring<string>> {
  const allowlist = context?.allowlist ?? parseAllowlist([]);
  let url: URL;
  try {
    url = await checkCustomHost(key.tokenUri, allowlist, context?.lookup);
  } catch (error) {
    if (!isGatewayError(error)) throw error;
    throw invalidParam(SERVICE_ACCOUNT_HEADER, `The service account token_uri is not allowed: ${error.message}`, error.code ?? 'invalid_token_uri');
  }
  const assertion = await signAssertion(key, nowMs);
  // one short-lived dispatcher per fetch (at most one per key and hour): its lookup refuses blocked addresses at
  // connect time, so a token_uri that re-resolves to an internal address after the check cannot be reached
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(allowlist) }, headersTimeout: FETCH_TIMEOUT_MS, bodyTimeout: FETCH_TIMEOUT_MS });
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: GRANT_TYPE, assertion }).toString(),
      dispatcher,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw exchangeFailed(response.statusCode, text);
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw badGateway('Vertex AI: the token endpoint answered with a body that is not JSON.', 'vertex_token_exchange_failed');
    }
    if (typeof json.access_token !== 'string' || typeof json.expires_in !== 'number') {
      throw badGateway('Vertex AI: the token endpoint answer has no access_token and expires_in.', 'vertex_token_exchange_failed');
    }
    return { value: json.access_token, expiresAt: nowMs + json.expires_in * 1000 };
  } catch (error) {
    if (isGatewayError(error)) throw error;
    if ((error as { code?: string }).code === CUSTOM_HOST_BLOCKED_CODE) {
      throw invalidParam(SERVICE_ACCOUNT_HEADER, 'The service account token_uri resolves to a blocked address.', 'custom_host_blocked');
    }
    throw badGateway(`Vertex AI: could not reach the service account token_uri: ${(error as Error).message}`, 'vertex_token_exchange_failed');
  } finally {
    void dispatcher.close();
  }
}

export function createTokenSource(options: { now: () => number }): TokenSource {
  const tokens = createCredentialCache<string>({ now: options.now });
  return {
    accessToken(key, context) {
      const parts = ['vertex', key.clientEmail, key.privateKey, key.tokenUri];
      return tokens.get(parts, () => fetchToken(key, context, options.now()), context?.signal);
    },
  };
}
