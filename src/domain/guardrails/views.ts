/** Guardrails as the admin API shows them (api-surface §3.14 GuardrailSummary, GuardrailDetails). */
import type { GuardrailRow } from '../../storage/repositories/guardrails.ts';
import type { GuardrailActions, StoredCheck } from './definition.ts';

export function guardrailSummaryView(row: GuardrailRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    owner_id: row.createdBy,
    updated_by: row.updatedBy,
  };
}

export function guardrailDetailsView(row: GuardrailRow) {
  return { ...guardrailSummaryView(row), checks: row.checks as StoredCheck[], actions: row.actions as unknown as GuardrailActions };
}

/** What create and update answer: guardrails are not versioned, so `version_id` is null. */
export function guardrailRefView(row: GuardrailRow) {
  return { id: row.id, slug: row.slug, version_id: null };
}
