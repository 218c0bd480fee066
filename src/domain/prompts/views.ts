/** Prompts as the admin API shows them (api-surface §3.10: PromptSummary, Prompt, PromptVersionSummary). */
import type { PromptListRow, PromptRow, PromptVersionRow } from '../../storage/repositories/prompts.ts';

export function promptSummaryView(row: PromptListRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    collection_id: row.collectionId,
    workspace_id: row.workspaceId,
    model: row.model,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.updatedAt.toISOString(),
    object: 'prompt' as const,
  };
}

/** A prompt at one version: GET /prompts/{id} (the default version) and GET /prompts/{id}/versions/{versionId}. */
export function promptView(prompt: PromptRow, version: PromptVersionRow) {
  return {
    id: prompt.id,
    slug: prompt.slug,
    name: prompt.name,
    collection_id: prompt.collectionId,
    workspace_id: prompt.workspaceId,
    string: version.template,
    parameters: version.parameters,
    prompt_version: version.version,
    prompt_version_id: version.id,
    prompt_version_status: version.status,
    prompt_version_description: version.description,
    prompt_version_label_id: version.labelId,
    default_version: prompt.defaultVersion,
    virtual_key: prompt.virtualKey,
    model: version.model,
    functions: version.functions ?? [],
    tools: version.tools ?? [],
    tool_choice: version.toolChoice ?? null,
    template_metadata: version.templateMetadata ?? {},
    is_raw_template: version.isRawTemplate,
    status: prompt.status,
    created_at: prompt.createdAt.toISOString(),
    last_updated_at: prompt.updatedAt.toISOString(),
    object: 'prompt' as const,
  };
}

export function promptVersionSummaryView(version: PromptVersionRow) {
  return {
    id: version.id,
    prompt_id: version.promptId,
    prompt_template: {
      string: version.template,
      parameters: version.parameters,
      model: version.model,
      functions: version.functions ?? [],
      tools: version.tools ?? [],
      tool_choice: version.toolChoice ?? null,
      template_metadata: version.templateMetadata ?? {},
      is_raw_template: version.isRawTemplate,
    },
    prompt_version: version.version,
    prompt_description: version.description,
    label_id: version.labelId,
    created_at: version.createdAt.toISOString(),
    status: version.status,
    object: 'prompt' as const,
  };
}
