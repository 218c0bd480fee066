/**
 * Deletes a workspace (admin keys only). Its members go with it. The default workspace stays (admin keys
 * attribute their inference to it), and a workspace that still has API keys is refused: deleting it would
 * silently revoke them through the foreign key's cascade.
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { badRequest, conflict } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { countWorkspaceApiKeys, deleteWorkspaceRow, lockWorkspace, type WorkspaceRow } from '../../storage/repositories/workspaces.ts';
import { visibleWorkspace } from './access.ts';

export async function deleteWorkspace(db: Db, principal: Principal, idOrSlug: string): Promise<WorkspaceRow> {
  requireAdminKey(principal, 'delete workspaces');
  const workspace = await visibleWorkspace(db, principal, idOrSlug);
  if (workspace.isDefault) throw badRequest('The default workspace cannot be deleted.', 'default_workspace');
  // locked before counting: a key created concurrently is either counted or fails its foreign key after us
  await lockWorkspace(db, workspace.id);
  const keys = await countWorkspaceApiKeys(db, workspace.id);
  if (keys > 0) {
    throw conflict(
      `Workspace "${workspace.slug}" still has ${keys} API key${keys === 1 ? '' : 's'}; delete ${keys === 1 ? 'it' : 'them'} first.`,
      'workspace_has_api_keys',
    );
  }
  await deleteWorkspaceRow(db, workspace.id);
  return workspace;
}
