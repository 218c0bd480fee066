/**
 * What the provider use cases take, with the admin API's field names (api-surface §3.4); the transport's schemas
 * are checked against these types at compile time (src/http/admin/providers/schemas.ts).
 */
import type { RateLimit, UsageLimit } from '../limits.ts';

export interface CreateProviderInput {
  name: string;
  /** the integration's slug or id: one the workspace may use */
  integration_id: string;
  /** a workspace id or slug; absent: the caller's workspace (an admin key's: the default workspace) */
  workspace_id?: string;
  slug?: string;
  note?: string | null;
  usage_limits?: UsageLimit | null;
  /** one limit (the reference's create body) or a list (what reads show) */
  rate_limits?: RateLimit | RateLimit[] | null;
  expires_at?: string | null;
}

export interface UpdateProviderInput {
  name?: string;
  note?: string | null;
  usage_limits?: UsageLimit | null;
  rate_limits?: RateLimit | RateLimit[] | null;
  /** null removes the expiry */
  expires_at?: string | null;
  /** true restarts the usage count from now */
  reset_usage?: boolean;
}

export interface ListProvidersInput {
  /** a workspace id or slug; required with an organisation key */
  workspace?: string | undefined;
}

/** The `workspace_id` query of GET, PUT and DELETE /providers/{slug}: which workspace's slug it is. */
export interface ProviderAddress {
  idOrSlug: string;
  workspace: string | undefined;
}

/** Rate limits are stored (and shown) as a list; the reference's create body sends one. */
export function rateLimitList(value: RateLimit | RateLimit[] | null | undefined): RateLimit[] | null | undefined {
  if (value === undefined || value === null) return value;
  return Array.isArray(value) ? value : [value];
}
