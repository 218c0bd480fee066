/** Prompt partials as the admin API shows them (api-surface §3.11). */
import type { PartialRow, PartialVersionRow } from '../../storage/repositories/prompt-partials.ts';

export function partialSummaryView(row: PartialRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    collection_id: row.collectionId,
    workspace_id: row.workspaceId,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    status: row.status,
    object: 'partial' as const,
  };
}

/** GET one: the partial with its default version (what prompts include). */
export function partialView(row: PartialRow, version: PartialVersionRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    collection_id: row.collectionId,
    workspace_id: row.workspaceId,
    string: version.template,
    version: version.version,
    version_description: version.description,
    prompt_partial_version_id: version.id,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    status: row.status,
  };
}

/** One entry of GET …/versions; `version` is a string there, as in the reference. */
export function partialVersionView(row: PartialRow, version: PartialVersionRow) {
  return {
    prompt_partial_id: row.id,
    prompt_partial_version_id: version.id,
    slug: row.slug,
    version: String(version.version),
    string: version.template,
    description: version.description,
    is_default: version.version === row.defaultVersion,
    created_at: version.createdAt.toISOString(),
    prompt_version_status: version.status,
    object: 'partial' as const,
  };
}
