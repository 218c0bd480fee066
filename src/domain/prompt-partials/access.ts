/**
 * Who sees and who changes a prompt partial (the rule of collections and configs): whoever may access its
 * workspace reads it, its managers (and organisation admins) change it. Another workspace's partial is a 404, so
 * its existence does not leak.
 */
import { canAccessWorkspace, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findPartialRow, findWorkspacePartialRow, type PartialRow } from '../../storage/repositories/prompt-partials.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,64}$/;

/** `{promptPartialId}` path parameter: a UUID or a slug. */
export function partialParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.promptPartialId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) {
    throw invalidParam('promptPartialId', 'promptPartialId must be a prompt partial UUID or slug.');
  }
  return value;
}

export function partialNotFound(idOrSlug: string) {
  return notFound(`Prompt partial "${idOrSlug}" not found.`, 'prompt_partial_not_found');
}

/** A workspace key looks in its own workspace (slugs are unique per workspace); an admin key in the organisation. */
export async function visiblePartial(db: Db, principal: Principal, idOrSlug: string): Promise<PartialRow> {
  const row = principal.keyType === 'workspace'
    ? await findWorkspacePartialRow(db, principal.workspaceId, idOrSlug)
    : await findPartialRow(db, principal.organisationId, idOrSlug);
  if (!row || !canAccessWorkspace(principal, row.workspaceId)) throw partialNotFound(idOrSlug);
  return row;
}

export async function managedPartial(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<PartialRow> {
  const row = await visiblePartial(db, principal, idOrSlug);
  requireWorkspaceManager(principal, row.workspaceId, `${what} its prompt partials`);
  return row;
}
