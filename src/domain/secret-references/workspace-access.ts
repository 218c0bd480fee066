/**
 * allow_all_workspaces and allowed_workspaces as stored. Workspaces are named by id or slug and stored as ids.
 * Naming workspaces without the flag means "only these" (allow_all_workspaces becomes false); a list sent with
 * allow_all_workspaces true is kept (it takes effect once the flag is turned off). The flag off with no workspace
 * would make a reference nobody may use: a 400.
 */
import { invalidParam } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';

export interface WorkspaceAccess {
  allowAllWorkspaces: boolean;
  allowedWorkspaces: string[];
}

async function workspaceIds(db: Db, organisationId: string, named: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, idOrSlug] of named.entries()) {
    const workspace = await findWorkspace(db, organisationId, idOrSlug);
    if (!workspace) throw invalidParam(`allowed_workspaces[${index}]`, `allowed_workspaces[${index}]: workspace "${idOrSlug}" not found.`, 'workspace_not_found');
    if (!ids.includes(workspace.id)) ids.push(workspace.id);
  }
  return ids;
}

export async function workspaceAccess(
  db: Db,
  organisationId: string,
  given: { allow_all_workspaces?: boolean | undefined; allowed_workspaces?: readonly string[] | undefined },
  current: WorkspaceAccess = { allowAllWorkspaces: true, allowedWorkspaces: [] },
): Promise<WorkspaceAccess> {
  const allowedWorkspaces = given.allowed_workspaces === undefined ? current.allowedWorkspaces : await workspaceIds(db, organisationId, given.allowed_workspaces);
  const allowAllWorkspaces = given.allow_all_workspaces ?? (given.allowed_workspaces === undefined ? current.allowAllWorkspaces : false);
  if (!allowAllWorkspaces && allowedWorkspaces.length === 0) {
    throw invalidParam('allowed_workspaces', 'allowed_workspaces must name at least one workspace when allow_all_workspaces is false.');
  }
  return { allowAllWorkspaces, allowedWorkspaces };
}
