/** Secret references as the admin API shows them (api-surface §3.17): the reference, never the value. */
import type { SecretReferenceRow } from '../../storage/repositories/secret-references.ts';
import type { SecretReferenceDetail } from './read-secret-references.ts';

const OBJECT = 'secret-reference';

/** the reference's status reads ACTIVE, upper-case, as in the reference's answers */
const statusOf = (row: SecretReferenceRow) => row.status.toUpperCase();

export function secretReferenceSummaryView(row: SecretReferenceRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    manager_type: row.managerType,
    status: statusOf(row),
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    object: OBJECT,
  };
}

export function secretReferenceDetailView({ row, authConfig, allowedWorkspaces }: SecretReferenceDetail) {
  return {
    id: row.id,
    organisation_id: row.organisationId,
    name: row.name,
    slug: row.slug,
    description: row.description,
    manager_type: row.managerType,
    secret_path: row.secretPath,
    secret_key: row.secretKey,
    allow_all_workspaces: row.allowAllWorkspaces,
    allowed_workspaces: allowedWorkspaces,
    tags: row.tags ?? null,
    status: statusOf(row),
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    auth_config: authConfig,
    object: OBJECT,
  };
}

export function secretReferenceCreatedView(row: SecretReferenceRow) {
  return { id: row.id, slug: row.slug, object: OBJECT };
}
