/**
 * SCIM mappings decide who joins which workspace with which role: organisation-wide people management, so only
 * admin keys (and owner/admin users acting at organisation level) may read or change them; a workspace key is a 403.
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';

export function requireScimAdmin(principal: Principal, what: string): void {
  requireAdminKey(principal, `${what} SCIM group mappings`);
}

/** `{scimWorkspaceGroupId}` path parameter: the mapping's UUID. */
export function mappingParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.scimWorkspaceGroupId;
  if (typeof value !== 'string' || !isUuid(value)) {
    throw invalidParam('scimWorkspaceGroupId', 'scimWorkspaceGroupId must be a SCIM mapping UUID.');
  }
  return value.toLowerCase();
}
