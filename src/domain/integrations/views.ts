/**
 * Integrations as the admin API shows them (api-surface §3.3 IntegrationList, IntegrationDetailResponse,
 * IntegrationModel, the workspace access items). No view carries a credential: the key only as `masked_key`,
 * secret configurations as `********`.
 */
import type { IntegrationModelRow, IntegrationRow, IntegrationWorkspaceRow } from '../../storage/repositories/integrations.ts';
import { maskedConfigurations, type IntegrationRules } from './configurations.ts';
import type { IntegrationDetails } from './read-integrations.ts';

export function integrationSummaryView(row: IntegrationRow) {
  return {
    id: row.id,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    ai_provider_id: row.aiProviderId,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    object: 'integration' as const,
  };
}

export function integrationDetailView({ row, workspaceCount }: IntegrationDetails, rules: IntegrationRules) {
  return {
    ...integrationSummaryView(row),
    masked_key: row.maskedKey,
    configurations: maskedConfigurations(row.configurations, row.aiProviderId, rules),
    global_workspace_access_settings: row.globalWorkspaceAccess,
    allow_all_models: row.allowAllModels,
    workspace_count: workspaceCount,
    secret_mappings: row.secretMappings,
    pricing_adjustments: row.pricingAdjustments,
  };
}

/** What create answers: `{id, slug}`. */
export function integrationRefView(row: IntegrationRow) {
  return { id: row.id, slug: row.slug };
}

export function integrationModelView(row: IntegrationModelRow) {
  return {
    slug: row.slug,
    name: row.name,
    enabled: row.enabled,
    is_custom: row.isCustom,
    is_finetune: row.isFinetune,
    base_model_slug: row.baseModelSlug,
    configurations: row.configurations,
    pricing_config: row.pricingConfig,
  };
}

export function integrationWorkspaceView(row: Pick<IntegrationWorkspaceRow, 'workspaceId' | 'enabled' | 'usageLimits' | 'rateLimits'>) {
  return { id: row.workspaceId, enabled: row.enabled, usage_limits: row.usageLimits, rate_limits: row.rateLimits };
}
