/**
 * Creates a workspace (admin keys of organisation owners/admins only). The listed users join it as members;
 * an unknown user, a taken slug or anything else wrong leaves nothing behind (the caller's transaction).
 */
import { requireAdminKey } from '../../auth/authorize.ts';
import type { Principal } from '../../core/context.ts';
import { conflict, invalidParam } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { insertMembers, organisationUserIds } from '../../storage/repositories/workspace-members.ts';
import { chooseSlug, prefixedSlug, randomHex6 } from '../slugs.ts';
import type { CreateWorkspaceInput } from './inputs.ts';
import { createWorkspaceRow, isUniqueViolation, slugTaken, type WorkspaceRow } from '../../storage/repositories/workspaces.ts';

/** `ws-<name, slugified, at most 10 chars>-<6 hex>`, as in the reference's examples (`ws-test-a-174eb1`). */
export function generateSlug(name: string, randomHex: () => string = randomHex6): string {
  return prefixedSlug('ws', name, 10, 'workspace', randomHex);
}

function chooseWorkspaceSlug(db: Db, organisationId: string, name: string, requested: string | undefined): Promise<string> {
  return chooseSlug({
    requested,
    generate: () => generateSlug(name),
    taken: (slug) => slugTaken(db, organisationId, slug),
    resource: 'a workspace',
    conflictCode: 'workspace_slug_taken',
  });
}

export async function createWorkspace(db: Db, principal: Principal, body: CreateWorkspaceInput): Promise<WorkspaceRow> {
  requireAdminKey(principal, 'create workspaces');
  const organisationId = principal.organisationId;
  const userIds = (body.users ?? []).map((id) => id.toLowerCase());
  const known = await organisationUserIds(db, organisationId, userIds.filter(isUuid));
  userIds.forEach((id, index) => {
    if (!known.has(id)) throw invalidParam(`users[${index}]`, `User "${body.users?.[index]}" is not a user of this organisation.`, 'user_not_found');
  });

  const slug = await chooseWorkspaceSlug(db, organisationId, body.name, body.slug);
  let row: WorkspaceRow;
  try {
    row = await createWorkspaceRow(db, {
      organisationId,
      name: body.name,
      slug,
      description: body.description ?? null,
      defaults: body.defaults?.metadata ? { metadata: body.defaults.metadata } : {},
      usageLimits: body.usage_limits ?? [],
      rateLimits: body.rate_limits ?? [],
    });
  } catch (error) {
    // a concurrent create took the slug between the check and the insert
    if (isUniqueViolation(error)) throw conflict(`A workspace with slug "${slug}" already exists.`, 'workspace_slug_taken');
    throw error;
  }
  await insertMembers(db, row.id, userIds.map((userId) => ({ userId, role: 'member' })));
  return row;
}
