/** Providers as the admin API shows them (api-surface §3.4 Provider). Status is read, never stored: status.ts. */
import type { UsageLimit } from '../limits.ts';
import type { ProviderRow } from '../../storage/repositories/providers.ts';
import type { ProviderWithIntegration } from './read-providers.ts';
import { providerStatus, type ExhaustionCheck, type UsageSubject } from './status.ts';

export function usageSubject(row: ProviderRow): UsageSubject & { expiresAt: Date | null } {
  return {
    id: row.id,
    slug: row.slug,
    organisationId: row.organisationId,
    workspaceId: row.workspaceId,
    // stored only through the admin API's schema (UsageLimits)
    usageLimits: row.usageLimits as UsageLimit | null,
    usageResetAt: row.usageResetAt,
    expiresAt: row.expiresAt,
  };
}

/** The fields the provider and virtual key views share. */
export async function providerFields(row: ProviderRow, now: number, isExhausted: ExhaustionCheck) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    workspace_id: row.workspaceId,
    note: row.note,
    status: await providerStatus(usageSubject(row), now, isExhausted),
    usage_limits: row.usageLimits,
    // the count itself is the budgets' (their counters); a reset shows as usage_reset_at
    reset_usage: null,
    usage_reset_at: row.usageResetAt?.toISOString() ?? null,
    rate_limits: row.rateLimits,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}

export async function providerView({ provider, integration }: ProviderWithIntegration, now: number, isExhausted: ExhaustionCheck) {
  return {
    ...(await providerFields(provider, now, isExhausted)),
    // the reference names the integration by the slug its create body takes
    integration_id: integration?.slug ?? provider.integrationId,
    object: 'provider' as const,
  };
}

/** POST and PUT /providers answer the provider's id and slug. */
export function providerRefView(row: ProviderRow) {
  return { id: row.id, slug: row.slug };
}
