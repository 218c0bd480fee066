/**
 * What the virtual key use cases take, with the legacy API's field names (api-surface §3.2: camelCase cloud fields,
 * one `rate_limits` object); the transport's schemas are checked against these types at compile time
 * (src/http/admin/virtual-keys/schemas.ts). A virtual key is a provider row with its own integration.
 */
import type { RateLimit, UsageLimit } from '../limits.ts';
import type { SecretMapping } from '../providers/secret-mappings.ts';

/** One deployment of a cloud that serves models through named deployments. */
export interface DeploymentConfig {
  apiVersion: string;
  deploymentName: string;
  /** the model name a request uses to pick this deployment */
  alias?: string;
  is_default?: boolean;
}

/** The legacy cloud fields of a virtual key, kept in its `model_config`. */
export interface LegacyModelFields {
  apiVersion?: string | null;
  resourceName?: string | null;
  deploymentName?: string | null;
  deploymentConfig?: DeploymentConfig[];
}

export interface CreateVirtualKeyInput extends LegacyModelFields {
  /** the registry's provider name */
  provider: string;
  /** absent: the provider's name */
  name?: string;
  /** the provider credential; sealed at rest, never shown again */
  key?: string;
  slug?: string;
  note?: string | null;
  workspace_id?: string;
  usage_limits?: UsageLimit | null;
  rate_limits?: RateLimit | RateLimit[] | null;
  expires_at?: string | null;
  secret_mappings?: SecretMapping[];
}

export interface UpdateVirtualKeyInput extends LegacyModelFields {
  name?: string;
  /** a new credential: rotates the key every node sends */
  key?: string;
  note?: string | null;
  usage_limits?: UsageLimit | null;
  rate_limits?: RateLimit | RateLimit[] | null;
  expires_at?: string | null;
  secret_mappings?: SecretMapping[];
  reset_usage?: boolean;
}

export interface ListVirtualKeysInput {
  workspace?: string | undefined;
}
