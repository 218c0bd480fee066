/** The `workspace_id` list filter (id or slug) of the workspace-scoped groups (guardrails, configs). */
import { canAccessWorkspace } from '../../auth/authorize.ts';
import { notFound } from '../../core/errors.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import type { AdminContext } from './admin-route.ts';
import { optionalString } from './params.ts';

/** Only a workspace the caller may access (a workspace key: its own); any other is a 404, so none leaks. */
export async function workspaceFilter(ctx: AdminContext): Promise<string | undefined> {
  const value = optionalString(ctx.request.query, 'workspace_id');
  if (value === undefined) return undefined;
  const workspace = await findWorkspace(ctx.db, ctx.principal.organisationId, value);
  if (!workspace || !canAccessWorkspace(ctx.principal, workspace.id)) {
    throw notFound(`Workspace "${value}" not found.`, 'workspace_not_found');
  }
  return workspace.id;
}
