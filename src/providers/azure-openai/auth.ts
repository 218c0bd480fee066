/**
 * Azure credentials (https://learn.microsoft.com/en-us/azure/ai-services/openai/reference#authentication):
 * an API key travels in the `api-key` header, a Microsoft Entra ID access token as `Authorization: Bearer`.
 * The client sends either one as `Authorization: Bearer <token>`; `x-gateway-azure-auth-mode: entra` says it is an
 * Entra token (or any token the endpoint wants as a bearer), to be kept as a bearer. With Entra client credentials
 * in the settings the gateway gets the token itself (entra.ts).
 *
 * Modes (api-surface §3.3 azure_auth_mode): `default` (or `api-key`) is the API key; `entra` a bearer; `managed`
 * (managed identity) needs the Azure instance metadata service, which this gateway does not run next to: refused.
 */
import { invalidParam } from '../../core/errors.ts';
import type { ProviderTarget } from '../contract.ts';
import type { AuthStyle } from '../shared/auth-headers.ts';

export const AUTH_MODE_HEADER = 'x-gateway-azure-auth-mode';

export type AzureAuthMode = 'api-key' | 'entra';

export function authModeOf(target: ProviderTarget): AzureAuthMode {
  const mode = target.cloud['azure-auth-mode']?.toLowerCase();
  if (mode === undefined || mode === 'api-key' || mode === 'default') return 'api-key';
  if (mode === 'entra') return 'entra';
  if (mode === 'managed') {
    throw invalidParam(
      AUTH_MODE_HEADER,
      `${AUTH_MODE_HEADER} (azure_auth_mode) "managed" needs an Azure managed identity, read from the instance metadata service, which this gateway has no access to: use "entra" with client credentials, or an API key.`,
      'azure_managed_identity_unavailable',
    );
  }
  throw invalidParam(AUTH_MODE_HEADER, `Header ${AUTH_MODE_HEADER} must be "default", "api-key" or "entra", got "${mode}".`, 'invalid_header');
}

export function azureAuthStyle(target: ProviderTarget): AuthStyle {
  return authModeOf(target) === 'entra' ? 'bearer' : 'api-key';
}
