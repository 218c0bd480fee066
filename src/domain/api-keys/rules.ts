/** Checks shared by creating and updating keys: known scopes, no escalation, a sane expiry. */
import { requireScopesWithin } from '../../auth/authorize.ts';
import { isKnownScope } from '../../auth/scopes.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';

export function checkScopes(principal: Principal, scopes: readonly string[]): string[] {
  scopes.forEach((scope, index) => {
    if (!isKnownScope(scope)) throw invalidParam(`scopes[${index}]`, `Unknown scope "${scope}".`, 'unknown_scope');
  });
  requireScopesWithin(principal, scopes);
  return [...new Set(scopes)];
}

/** `expires_at`: an ISO-8601 date-time in the future, or null for no expiry. */
export function parseExpiry(value: string | null | undefined, now: Date): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) {
    throw invalidParam('expires_at', 'expires_at must be an ISO-8601 date-time.');
  }
  if (date.getTime() <= now.getTime()) throw invalidParam('expires_at', 'expires_at must be in the future.');
  return date;
}
