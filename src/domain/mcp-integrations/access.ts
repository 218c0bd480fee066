/**
 * Who sees and who changes an MCP integration (the same rules as AI-provider integrations, docs/admin-api.md):
 * an organisation integration is seen by organisation admins and by workspace keys of a workspace it is enabled for,
 * and changed by admin keys only; a workspace integration is seen by whoever may access its workspace and changed
 * by that workspace's managers (and organisation admins). Anything else is a 404.
 */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findMcpIntegration, mcpIntegrationUsableBy, type McpIntegrationRow } from '../../storage/repositories/mcp-integrations.ts';

export const MCP_SLUG = /^[a-zA-Z0-9_-]{1,255}$/;

/** `{mcpIntegrationId}` path parameter: the integration's UUID or slug. */
export function mcpIntegrationParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.mcpIntegrationId;
  if (typeof value !== 'string' || !MCP_SLUG.test(value)) {
    throw invalidParam('mcpIntegrationId', 'mcpIntegrationId must be an MCP integration UUID or slug.');
  }
  return value;
}

export const mcpIntegrationNotFound = (idOrSlug: string) => notFound(`MCP integration "${idOrSlug}" not found.`, 'mcp_integration_not_found');

async function canSee(db: Db, principal: Principal, row: McpIntegrationRow): Promise<boolean> {
  if (row.workspaceId !== null) return canAccessWorkspace(principal, row.workspaceId);
  if (principal.keyType === 'organisation') return isOrganisationAdmin(principal);
  return mcpIntegrationUsableBy(db, row.id, principal.workspaceId);
}

export async function visibleMcpIntegration(db: Db, principal: Principal, idOrSlug: string): Promise<McpIntegrationRow> {
  const row = await findMcpIntegration(db, principal.organisationId, idOrSlug);
  if (!row || !(await canSee(db, principal, row))) throw mcpIntegrationNotFound(idOrSlug);
  return row;
}

export function requireMcpIntegrationManager(principal: Principal, workspaceId: string | null, what: string): void {
  if (workspaceId === null) requireAdminKey(principal, `${what} organisation MCP integrations`);
  else requireWorkspaceManager(principal, workspaceId, `${what} its MCP integrations`);
}

export async function managedMcpIntegration(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<McpIntegrationRow> {
  const row = await visibleMcpIntegration(db, principal, idOrSlug);
  requireMcpIntegrationManager(principal, row.workspaceId, what);
  return row;
}
