/** Read, update, delete and rotate one API key, within what the caller may see and manage. */
import { canAccessWorkspace, isOrganisationAdmin, requireAdminKey, requireScope, requireWorkspaceManager } from '../../auth/authorize.ts';
import { generateApiKeySecret, hashApiKey, maskApiKey } from '../../auth/secrets.ts';
import type { Principal } from '../../core/context.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import type { KvStore } from '../../kv/store.ts';
import type { Db } from '../../storage/database.ts';
import { deleteApiKey, getApiKey, updateApiKey, type ApiKeyRow } from '../../storage/repositories/api-keys.ts';
import type { RotateApiKeyInput, UpdateApiKeyInput } from './inputs.ts';
import { keyKind } from './kinds.ts';
import { checkScopes, parseExpiry } from './rules.ts';
import { resetKeyUsage } from './usage.ts';

export const DEFAULT_TRANSITION_MS = 1_800_000;

function visible(principal: Principal, row: ApiKeyRow): boolean {
  if (principal.keyType === 'organisation') return isOrganisationAdmin(principal);
  return row.workspaceId !== null && canAccessWorkspace(principal, row.workspaceId);
}

/** Loads a key the caller may see and checks the scope for `action`; another workspace's key is a 404. */
export async function findKeyFor(db: Db, principal: Principal, id: string, action: 'read' | 'update' | 'delete'): Promise<ApiKeyRow> {
  const row = await getApiKey(db, principal.organisationId, id);
  if (!row || !visible(principal, row)) throw notFound(`API key "${id}" not found.`, 'api_key_not_found');
  const kind = keyKind(row.type, row.subType);
  requireScope(principal, `${kind?.resource ?? 'organisation_service_api_keys'}.${action}`);
  if (action !== 'read') {
    if (row.type === 'organisation') requireAdminKey(principal, 'manage admin API keys');
    else requireWorkspaceManager(principal, row.workspaceId ?? '', 'manage its keys');
  }
  return row;
}

function hashesOf(row: ApiKeyRow): string[] {
  return row.previousKeyHash ? [row.keyHash, row.previousKeyHash] : [row.keyHash];
}

/**
 * Changes what the body names. `reset_usage: true` zeroes the key's budget (as updated) last, inside the caller's
 * transaction: the live counter is what every node counts against, so a failure there leaves the row unchanged too.
 */
export async function updateKey(db: Db, kv: KvStore, principal: Principal, id: string, body: UpdateApiKeyInput, now: Date) {
  const row = await findKeyFor(db, principal, id, 'update');
  const expiresAt = parseExpiry(body.expires_at, now);
  const updated = await updateApiKey(db, row.id, {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.scopes !== undefined ? { scopes: checkScopes(principal, body.scopes) } : {}),
    ...(body.rate_limits !== undefined ? { rateLimits: body.rate_limits } : {}),
    ...(body.usage_limits !== undefined ? { usageLimits: body.usage_limits } : {}),
    ...(body.defaults !== undefined ? { defaults: body.defaults } : {}),
    ...(body.alert_emails !== undefined ? { alertEmails: body.alert_emails } : {}),
    ...(body.rotation_policy !== undefined ? { rotationPolicy: body.rotation_policy } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  });
  if (body.reset_usage === true) await resetKeyUsage(kv, updated ?? row, now);
  return { row: updated ?? row, invalidate: hashesOf(row) };
}

export async function deleteKey(db: Db, principal: Principal, id: string) {
  const row = await findKeyFor(db, principal, id, 'delete');
  if (principal.kind === 'api_key' && principal.keyId === row.id) {
    throw badRequest('A key cannot delete itself; use another admin key.', 'cannot_delete_self');
  }
  await deleteApiKey(db, row.id);
  return { row, invalidate: hashesOf(row) };
}

/** A new secret; the old one keeps working until the transition period ends (an older one stops at once). */
export async function rotateKey(db: Db, principal: Principal, id: string, body: RotateApiKeyInput, now: Date) {
  const row = await findKeyFor(db, principal, id, 'update');
  const secret = generateApiKeySecret();
  const transitionEnds = new Date(now.getTime() + (body.key_transition_period_ms ?? DEFAULT_TRANSITION_MS));
  await updateApiKey(db, row.id, {
    keyHash: hashApiKey(secret),
    maskedKey: maskApiKey(secret),
    previousKeyHash: row.keyHash,
    previousKeyExpiresAt: transitionEnds,
  });
  return { id: row.id, key: secret, transitionEnds, workspaceId: row.workspaceId, invalidate: hashesOf(row) };
}
