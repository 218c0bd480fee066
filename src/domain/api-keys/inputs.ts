/**
 * What the API-key use cases take. Field names are the admin API's (the transport's schemas are checked against
 * these types at compile time, in src/http/admin/api-keys/schemas.ts).
 */
import type { RateLimit, UsageLimit } from '../limits.ts';

export type KeyDefaults = {
  metadata?: Record<string, unknown>;
  config_id?: string;
  allow_config_override?: boolean;
};

export type RotationPolicy = {
  rotation_period?: 'weekly' | 'monthly' | null;
  next_rotation_at?: string | null;
  key_transition_period_ms?: number;
};

/** What creating and updating a key share. */
interface KeySettings {
  description?: string | null;
  rate_limits?: RateLimit[] | null;
  usage_limits?: UsageLimit | null;
  defaults?: KeyDefaults | null;
  alert_emails?: string[] | null;
  /** ISO-8601, in the future; null: never */
  expires_at?: string | null;
  rotation_policy?: RotationPolicy | null;
}

export interface CreateApiKeyInput extends KeySettings {
  name: string;
  scopes: readonly string[];
  /** when given, the caller's own organisation */
  organisation_id?: string;
  /** workspace keys: the workspace's id or slug */
  workspace_id?: string;
  /** workspace user keys: the key's user; absent, the caller's own user (see createApiKey) */
  user_id?: string;
}

export interface UpdateApiKeyInput extends KeySettings {
  name?: string;
  scopes?: readonly string[];
  reset_usage?: boolean;
}

export interface RotateApiKeyInput {
  key_transition_period_ms?: number;
}

export interface ListApiKeysInput {
  /** a workspace id or slug: only that workspace's keys */
  workspace?: string | undefined;
}
