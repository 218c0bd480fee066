/**
 * Reading workspaces and their members: whoever may see the workspace (a workspace key: its own only; another is
 * a 404, so its existence does not leak). Every route also requires its read or list scope.
 */
import type { Principal } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { getMember, listMembers, type MemberRow } from '../../storage/repositories/workspace-members.ts';
import { listWorkspaces, type WorkspaceRow } from '../../storage/repositories/workspaces.ts';
import { visibleWorkspace } from './access.ts';
import type { ListMembersInput, ListWorkspacesInput } from './inputs.ts';

type Page = { offset: number; limit: number };

export async function listWorkspacesFor(db: Db, principal: Principal, filter: ListWorkspacesInput, page: Page) {
  const onlyId = principal.keyType === 'workspace' ? principal.workspaceId : undefined;
  return listWorkspaces(db, { organisationId: principal.organisationId, onlyId, ...filter }, page);
}

/** A workspace with every member: what GET /admin/workspaces/{id} shows. */
export async function readWorkspace(db: Db, principal: Principal, idOrSlug: string): Promise<{ workspace: WorkspaceRow; members: MemberRow[] }> {
  const workspace = await visibleWorkspace(db, principal, idOrSlug);
  const { rows } = await listMembers(db, workspace.id, {});
  return { workspace, members: rows };
}

export async function listMembersOf(db: Db, principal: Principal, idOrSlug: string, filter: ListMembersInput, page: Page) {
  const workspace = await visibleWorkspace(db, principal, idOrSlug);
  const { total, rows } = await listMembers(db, workspace.id, filter, page);
  return { workspace, total, rows };
}

export async function readMember(db: Db, principal: Principal, idOrSlug: string, userId: string): Promise<{ workspace: WorkspaceRow; member: MemberRow }> {
  const workspace = await visibleWorkspace(db, principal, idOrSlug);
  const member = await getMember(db, workspace.id, userId);
  if (!member) throw notFound(`User "${userId}" is not a member of this workspace.`, 'member_not_found');
  return { workspace, member };
}
