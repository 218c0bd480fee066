/**
 * Creates an API key. Admin keys (organisation/service): organisation owners and admins only. Workspace keys
 * (workspace/service, workspace/user): whoever manages that workspace. The secret is returned once; only its
 * hash is stored.
 *
 * A workspace user key belongs to `user_id`, or, when the body names none (the seed's body), to the caller's own
 * user: the user behind a user key or a JWT, the owner for the bootstrap admin key. The user must be a member of
 * the workspace, or an organisation owner or admin: those reach every workspace, and their key acts with their
 * organisation role there.
 */
import { requireAdminKey, requireScope, requireWorkspaceManager } from '../../auth/authorize.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../auth/secrets.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import { isUuid } from '../../core/ids.ts';
import type { Db } from '../../storage/database.ts';
import { insertApiKey } from '../../storage/repositories/api-keys.ts';
import { getUser, userRoles } from '../../storage/repositories/users.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
import type { CreateApiKeyInput } from './inputs.ts';
import { keyKind } from './kinds.ts';
import { checkScopes, parseExpiry } from './rules.ts';

export interface CreatedApiKey {
  id: string;
  key: string;
  workspaceId: string | null;
}

export async function createApiKey(
  db: Db,
  principal: Principal,
  path: { type: string; subType: string },
  body: CreateApiKeyInput,
  now: Date,
): Promise<CreatedApiKey> {
  const kind = keyKind(path.type, path.subType);
  if (!kind) {
    throw invalidParam('type', 'The key kind must be organisation/service, workspace/service or workspace/user.', 'invalid_key_kind');
  }
  requireScope(principal, `${kind.resource}.create`);
  if (body.organisation_id !== undefined && body.organisation_id !== principal.organisationId) {
    throw invalidParam('organisation_id', 'organisation_id must be the caller\'s organisation.');
  }

  let workspaceId: string | null = null;
  let userId: string | null = null;
  if (kind.type === 'organisation') {
    requireAdminKey(principal, 'create admin API keys');
    if (body.workspace_id !== undefined) throw invalidParam('workspace_id', 'An admin key belongs to no workspace.');
  } else {
    if (!body.workspace_id) throw invalidParam('workspace_id', 'workspace_id is required for a workspace key.', 'missing_field');
    const workspace = await findWorkspace(db, principal.organisationId, body.workspace_id);
    if (!workspace || (principal.keyType === 'workspace' && principal.workspaceId !== workspace.id)) {
      throw notFound(`Workspace "${body.workspace_id}" not found.`, 'workspace_not_found');
    }
    requireWorkspaceManager(principal, workspace.id, 'create keys for it');
    workspaceId = workspace.id;
    if (kind.subType === 'user') {
      userId = await keyUser(db, principal, body.user_id, workspace.id);
    } else if (body.user_id !== undefined) {
      throw invalidParam('user_id', 'user_id is only for workspace/user keys.');
    }
  }

  const scopes = checkScopes(principal, body.scopes);
  const secret = generateApiKeySecret();
  const row = await insertApiKey(db, {
    organisationId: principal.organisationId,
    workspaceId,
    type: kind.type,
    subType: kind.subType,
    userId,
    name: body.name,
    description: body.description ?? null,
    keyHash: hashApiKey(secret),
    maskedKey: maskApiKey(secret),
    scopes,
    role: kind.type === 'organisation' ? 'admin' : null,
    rateLimits: body.rate_limits ?? null,
    usageLimits: body.usage_limits ?? null,
    defaults: body.defaults ?? null,
    alertEmails: body.alert_emails ?? null,
    rotationPolicy: body.rotation_policy ?? null,
    expiresAt: parseExpiry(body.expires_at, now) ?? null,
    creationMode: 'api',
    createdBy: createdBy(principal),
  });
  return { id: row.id, key: secret, workspaceId };
}

/** The user a workspace user key belongs to: `user_id`, else the caller's own; a member or an organisation admin. */
async function keyUser(db: Db, principal: Principal, requested: string | undefined, workspaceId: string): Promise<string> {
  if (requested !== undefined && !isUuid(requested)) throw invalidParam('user_id', 'user_id must be a UUID.');
  const userId = requested?.toLowerCase() ?? principal.userId;
  if (userId === null) {
    throw invalidParam('user_id', 'user_id is required: the calling key acts for no user of its own (a service key), so name the key\'s user.', 'missing_field');
  }
  // a user of another organisation is as unknown as no user at all
  const user = await getUser(db, principal.organisationId, userId);
  const roles = user ? await userRoles(db, user.id, workspaceId) : undefined;
  if (!roles) throw notFound(`User "${userId}" not found.`, 'user_not_found');
  const reachesEveryWorkspace = roles.orgRole === 'owner' || roles.orgRole === 'admin';
  if (!roles.workspaceRole && !reachesEveryWorkspace) {
    throw invalidParam('user_id', 'The user is not a member of this workspace.', 'not_a_member');
  }
  return userId;
}

export function createdBy(principal: Principal): string {
  return principal.userId ? `user:${principal.userId}` : `api_key:${principal.keyId}`;
}
