/**
 * What the integration use cases take, with the admin API's field names (api-surface §3.3; the transport's schemas
 * in src/http/admin/integrations/schemas.ts are checked against these types at compile time). `configurations` is
 * the provider's to judge (configurations.ts): its fields depend on `ai_provider_id`.
 */
import type { RateLimit, UsageLimit } from '../limits.ts';

/** §0.7 SecretMapping: a field of the integration whose value comes from a secret reference. */
export interface SecretMappingInput {
  /** `key` or `configurations.<field>` */
  target_field: string;
  /** the secret reference's id or slug */
  secret_reference_id: string;
  secret_key?: string | null;
  value_format?: 'json' | 'string' | null;
}

export type PricingAdjustmentsInput = { multiplier?: Record<string, unknown> | null } | null;

export interface CreateIntegrationInput {
  name: string;
  slug?: string;
  /** the provider, as the registry names it (openai, anthropic, bedrock ...) */
  ai_provider_id: string;
  /** the provider's API key */
  key?: string;
  description?: string | null;
  /** a workspace id or slug: an integration of that workspace only; absent: organisation-wide (admin keys) */
  workspace_id?: string;
  configurations?: Record<string, unknown>;
  /** default true: a provider (`@slug`) pointing at the integration is created where it may be used */
  create_default_provider?: boolean;
  default_provider_slug?: string;
  secret_mappings?: readonly SecretMappingInput[];
  pricing_adjustments?: PricingAdjustmentsInput;
}

/** A PUT replaces what it names; `configurations` as a whole (a secret sent back masked keeps the stored one). */
export interface UpdateIntegrationInput {
  name?: string;
  key?: string;
  description?: string | null;
  configurations?: Record<string, unknown>;
  secret_mappings?: readonly SecretMappingInput[];
  pricing_adjustments?: PricingAdjustmentsInput;
}

export interface ListIntegrationsInput {
  /** a workspace id or slug: the integrations that workspace may use */
  workspace?: string | undefined;
  type?: 'workspace' | 'organisation' | 'all' | undefined;
}

/** §3.3 pricing_config: a custom or negotiated price per token kind. */
export interface PricingConfigInput {
  type?: 'static';
  currency?: 'USD';
  pay_as_you_go: Record<string, unknown>;
}

/** §3.3 ModelUpdateRequest. Omitted optional fields keep what is stored. */
export interface ModelUpdateInput {
  slug: string;
  enabled: boolean;
  name?: string | null;
  is_custom?: boolean | null;
  is_finetune?: boolean | null;
  base_model_slug?: string | null;
  configurations?: { custom_host?: string } | null;
  pricing_config?: PricingConfigInput | null;
}

export interface UpdateModelsInput {
  models: readonly ModelUpdateInput[];
  allow_all_models?: boolean;
}

/** §0.7 GlobalWorkspaceAccess */
export interface GlobalWorkspaceAccessInput {
  enabled: boolean;
  usage_limits?: UsageLimit[] | null;
  rate_limits?: RateLimit[] | null;
}

export interface WorkspaceAccessInput {
  /** a workspace id or slug */
  id: string;
  enabled: boolean;
  usage_limits?: UsageLimit[] | null;
  rate_limits?: RateLimit[] | null;
  reset_usage?: boolean;
  create_default_provider?: boolean;
  default_provider_slug?: string;
}

/** §3.3 BulkUpdateWorkspacesRequest */
export interface UpdateWorkspacesInput {
  workspaces?: readonly WorkspaceAccessInput[];
  global_workspace_access?: GlobalWorkspaceAccessInput | null;
  override_existing_workspace_access?: boolean;
  create_default_provider?: boolean;
  default_provider_slug?: string;
}
