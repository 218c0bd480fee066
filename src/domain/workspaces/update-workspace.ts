/** Updates a workspace's name, description, defaults and limits (admin keys only). `defaults` merges key by key. */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import type { Db } from '../../storage/database.ts';
import { updateWorkspaceRow, type WorkspaceRow } from '../../storage/repositories/workspaces.ts';
import { visibleWorkspace } from './access.ts';
import type { UpdateWorkspaceInput } from './inputs.ts';
import type { WorkspaceDefaults } from './views.ts';

export async function updateWorkspace(db: Db, principal: Principal, idOrSlug: string, body: UpdateWorkspaceInput): Promise<WorkspaceRow> {
  requireAdminKey(principal, 'update workspaces');
  const workspace = await visibleWorkspace(db, principal, idOrSlug);
  // a PUT that names only `defaults.metadata` keeps the guardrails and the user key config as they are
  const defaults: WorkspaceDefaults | undefined = body.defaults
    ? { ...(workspace.defaults as WorkspaceDefaults), ...body.defaults }
    : undefined;
  const updated = await updateWorkspaceRow(db, workspace.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(defaults !== undefined ? { defaults: { ...defaults } } : {}),
    ...(body.usage_limits !== undefined ? { usageLimits: body.usage_limits ?? [] } : {}),
    ...(body.rate_limits !== undefined ? { rateLimits: body.rate_limits ?? [] } : {}),
  });
  return updated ?? workspace;
}
