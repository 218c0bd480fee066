/** Labels as the admin API shows them (api-surface §3.13 Label). */
import type { LabelRow } from '../../storage/repositories/labels.ts';

export function labelView(row: LabelRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    color_code: row.colorCode,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    is_universal: row.isUniversal,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    status: row.status,
  };
}
