/** Saved configs as the admin API shows them (api-surface §3.1 ConfigSummary, ConfigVersion). */
import { maskConfigSecrets } from '../../secrets/config-secrets.ts';
import type { ConfigRow, ConfigVersionRow } from '../../storage/repositories/configs.ts';

export function configSummaryView(row: ConfigRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    is_default: row.isDefault ? 1 : 0,
    status: row.status,
    owner_id: row.ownerId,
    updated_by: row.updatedBy,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
  };
}

/** GET /configs/{slug}: the summary, the current version's id and the config object. */
export function configDetailsView(row: ConfigRow, version: ConfigVersionRow) {
  return { ...configSummaryView(row), version_id: version.id, config: maskConfigSecrets(version.config) };
}

/**
 * One entry of GET /configs/{slug}/versions. The name, status, author and time are the version's own (what the
 * config was when it was written); the config goes out as a JSON string, as the reference's clients expect.
 */
export function configVersionView(row: ConfigRow, version: ConfigVersionRow) {
  return {
    ...configSummaryView(row),
    name: version.name,
    status: version.status,
    updated_by: version.createdBy,
    last_updated_at: version.createdAt.toISOString(),
    config: JSON.stringify(maskConfigSecrets(version.config)),
    format: 'json',
    type: row.workspaceId === null ? 'ORG_CONFIG' : 'WORKSPACE_CONFIG',
    version_id: version.id,
    object: 'config',
  };
}
