/**
 * Creates an API key. Admin keys (organisation/service): organisation owners and admins only. Workspace keys
 * (workspace/service, workspace/user): whoever manages that workspace. The secret is returned once; only its
 * hash is stored.
 */
import { requireAdminKey, requireScope, requireWorkspaceManager } from '../../auth/authorize.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../auth/secrets.ts';
import type { Principal } from '../../core/context.ts';
import { invalidParam, notFound } from '../../core/errors.ts';
import type { CreateApiKeyBody } from '../../http/admin/api-keys/schemas.ts';
import { isUuid } from '../../http/admin/params.ts';
import type { Db } from '../../storage/database.ts';
import { insertApiKey } from '../../storage/repositories/api-keys.ts';
import { userRoles } from '../../storage/repositories/users.ts';
import { findWorkspace } from '../../storage/repositories/workspaces.ts';
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
  body: CreateApiKeyBody,
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
      if (!body.user_id || !isUuid(body.user_id)) throw invalidParam('user_id', 'user_id (a UUID) is required for a user key.', 'missing_field');
      const roles = await userRoles(db, body.user_id, workspace.id);
      if (!roles) throw notFound(`User "${body.user_id}" not found.`, 'user_not_found');
      if (!roles.workspaceRole) throw invalidParam('user_id', 'The user is not a member of this workspace.', 'not_a_member');
      userId = body.user_id;
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

export function createdBy(principal: Principal): string {
  return principal.userId ? `user:${principal.userId}` : `api_key:${principal.keyId}`;
}
