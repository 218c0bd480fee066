/**
 * What the label use cases take, with the admin API's field names (the transport's schemas are checked against
 * these types at compile time, in src/http/admin/labels/schemas.ts).
 */

export interface CreateLabelInput {
  name: string;
  /** when given, the caller's own organisation */
  organisation_id?: string;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
  workspace_id?: string;
  description?: string | null;
  color_code?: string | null;
}

export interface UpdateLabelInput {
  name?: string;
  description?: string | null;
  color_code?: string | null;
}

export interface LabelScopeFilter {
  /** when given, must be the caller's organisation */
  organisationId?: string | undefined;
  /** a workspace id or slug: that workspace's labels and the organisation-wide ones */
  workspace?: string | undefined;
}

export interface ListLabelsInput extends LabelScopeFilter {
  search?: string | undefined;
}
