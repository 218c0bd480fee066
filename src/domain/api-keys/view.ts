/**
 * An API key as the admin API shows it (reference: ApiKeyObject): the secret only ever masked. `status` is the one
 * a read computes (usage.ts: `exhausted` while its budget is used up), the stored one when not given.
 */
import type { ApiKeyRow } from '../../storage/repositories/api-keys.ts';

export function apiKeyView(row: ApiKeyRow, status: string = row.status) {
  return {
    object: 'api-key' as const,
    id: row.id,
    key: row.maskedKey,
    name: row.name,
    description: row.description,
    type: `${row.type}-${row.subType}`,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    user_id: row.userId,
    status,
    creation_mode: row.creationMode,
    rate_limits: row.rateLimits ?? [],
    usage_limits: row.usageLimits ?? null,
    reset_usage: 0,
    scopes: row.scopes,
    defaults: row.defaults ?? null,
    alert_emails: row.alertEmails ?? [],
    rotation_policy: row.rotationPolicy ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    key_transition_expires_at: row.previousKeyExpiresAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}
