/**
 * Who sees and who changes a prompt collection (the rule of configs and guardrails): whoever may access its
 * workspace reads it, its managers (and organisation admins) change it. Another workspace's collection is a 404,
 * so its existence does not leak.
 */
import { canAccessWorkspace, requireWorkspaceManager } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { Db } from '../../storage/database.ts';
import { findCollectionRow, findOrganisationCollectionRow, type CollectionRow } from '../../storage/repositories/prompt-collections.ts';

const ID_OR_SLUG = /^[a-zA-Z0-9_-]{1,64}$/;

/** `{collectionId}` path parameter: a UUID or a slug. */
export function collectionParam(params: unknown): string {
  const value = (params as Record<string, unknown> | undefined)?.collectionId;
  if (typeof value !== 'string' || !ID_OR_SLUG.test(value)) {
    throw invalidParam('collectionId', 'collectionId must be a collection UUID or slug.');
  }
  return value;
}

export function collectionNotFound(idOrSlug: string) {
  return notFound(`Collection "${idOrSlug}" not found.`, 'collection_not_found');
}

/** A workspace key looks in its own workspace (slugs are unique per workspace); an admin key in the organisation. */
export async function visibleCollection(db: Db, principal: Principal, idOrSlug: string): Promise<CollectionRow> {
  const row = principal.keyType === 'workspace'
    ? await findCollectionRow(db, principal.workspaceId, idOrSlug)
    : await findOrganisationCollectionRow(db, principal.organisationId, idOrSlug);
  if (!row || !canAccessWorkspace(principal, row.workspaceId)) throw collectionNotFound(idOrSlug);
  return row;
}

export async function managedCollection(db: Db, principal: Principal, idOrSlug: string, what: string): Promise<CollectionRow> {
  const row = await visibleCollection(db, principal, idOrSlug);
  requireWorkspaceManager(principal, row.workspaceId, `${what} its prompt collections`);
  return row;
}

/** The acting user's id, or the API key's id when no user acted: `created_by`. */
export function actorId(principal: Principal): string {
  return principal.userId ?? principal.keyId;
}
