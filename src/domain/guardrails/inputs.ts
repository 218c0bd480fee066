/**
 * What the guardrail use cases take, with the admin API's field names (the transport's schemas are checked
 * against these types at compile time, in src/http/admin/guardrails/schemas.ts). A check's `id` and
 * `parameters` are the check registry's to judge (definition.ts).
 */

export interface GuardrailCheckInput {
  id: string;
  parameters?: Record<string, unknown>;
  name?: string;
  is_enabled?: boolean;
}

export interface GuardrailFeedbackInput {
  value?: number;
  weight?: number;
  metadata?: string;
}

/** Every field has a default (normaliseActions). */
export interface GuardrailActionsInput {
  deny?: boolean;
  async?: boolean;
  on_success?: { feedback?: GuardrailFeedbackInput };
  on_fail?: { feedback?: GuardrailFeedbackInput };
}

export interface CreateGuardrailInput {
  name: string;
  slug?: string;
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or organisation-wide (admin keys) */
  workspace_id?: string;
  /** when given, the caller's own organisation */
  organisation_id?: string;
  checks: readonly GuardrailCheckInput[];
  actions: GuardrailActionsInput;
}

export interface UpdateGuardrailInput {
  name?: string;
  checks?: readonly GuardrailCheckInput[];
  actions?: GuardrailActionsInput;
}

export interface ListGuardrailsInput {
  /** a workspace id or slug: only that workspace's guardrails */
  workspace?: string | undefined;
  /** when given, must be the caller's organisation */
  organisationId?: string | undefined;
}
