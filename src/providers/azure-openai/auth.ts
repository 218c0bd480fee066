/**
 * Azure credentials (https://learn.microsoft.com/en-us/azure/ai-services/openai/reference#authentication):
 * an API key travels in the `api-key` header, a Microsoft Entra ID access token as `Authorization: Bearer`.
 * The client sends either one as `Authorization: Bearer <token>`; `x-gateway-azure-auth-mode: entra` says it is an
 * Entra token (or any token the endpoint wants as a bearer), to be kept as a bearer.
 */
import { invalidParam } from '../../core/errors.ts';
import type { ProviderTarget } from '../contract.ts';
import type { AuthStyle } from '../shared/auth-headers.ts';

export const AUTH_MODE_HEADER = 'x-gateway-azure-auth-mode';

export function azureAuthStyle(target: ProviderTarget): AuthStyle {
  const mode = target.cloud['azure-auth-mode']?.toLowerCase();
  if (mode === undefined || mode === 'api-key') return 'api-key';
  if (mode === 'entra') return 'bearer';
  throw invalidParam(AUTH_MODE_HEADER, `Header ${AUTH_MODE_HEADER} must be "api-key" or "entra", got "${mode}".`, 'invalid_header');
}
