/**
 * What the logs use cases take, with the API's field names where a body carries them (api-surface §3.21, §3.22).
 * The transport's schemas are checked against these types at compile time (src/http/admin/logs/schemas.ts).
 */

/** One custom log (POST /logs): a request the caller made elsewhere and reports to the gateway. */
export interface CustomLogInput {
  request: { url: string; method?: string; headers?: Record<string, string>; body: Record<string, unknown> };
  response: { status?: number; headers?: Record<string, string>; body: Record<string, unknown>; response_time?: number };
  /** trace_id, span_id, span_name, and any other string */
  metadata?: Record<string, string>;
}

/** The filters of GET /logs (query parameters) and of an export (its `filters`), both narrowed to this. */
export interface LogQuery {
  startTime?: Date | undefined;
  endTime?: Date | undefined;
  /** a workspace id or slug */
  workspace?: string | undefined;
  apiKeyId?: string | undefined;
  providers?: string[] | undefined;
  models?: string[] | undefined;
  /** `provider__model` pairs */
  providerModels?: Array<[string, string]> | undefined;
  statuses?: number[] | undefined;
  traceIds?: string[] | undefined;
  spanIds?: string[] | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** USD cents, as the reference's analytics filters */
  costMinCents?: number | undefined;
  costMaxCents?: number | undefined;
  latencyMin?: number | undefined;
  latencyMax?: number | undefined;
  cacheStatuses?: string[] | undefined;
  totalUnitsMin?: number | undefined;
  totalUnitsMax?: number | undefined;
  promptTokensMin?: number | undefined;
  promptTokensMax?: number | undefined;
  completionTokensMin?: number | undefined;
  completionTokensMax?: number | undefined;
  /** saved providers' slugs (the reference's `virtual_keys`) */
  providerSlugs?: string[] | undefined;
  /** config ids or slugs */
  configs?: string[] | undefined;
  promptSlugs?: string[] | undefined;
  weightedFeedbackMin?: number | undefined;
  weightedFeedbackMax?: number | undefined;
}

/** The reference's GenerationsFilterSchema: an export's `filters`, all optional. */
export interface ExportFiltersInput {
  time_of_generation_min?: string;
  time_of_generation_max?: string;
  total_units_min?: number;
  total_units_max?: number;
  cost_min?: number;
  cost_max?: number;
  ai_model?: string;
  prompt_token_min?: number;
  prompt_token_max?: number;
  completion_token_min?: number;
  completion_token_max?: number;
  status_code?: string;
  metadata?: Record<string, unknown>;
  ai_org_model?: string;
  weighted_feedback_min?: number;
  weighted_feedback_max?: number;
  virtual_keys?: string;
  trace_id?: string;
  configs?: string;
  workspace_slug?: string;
  prompt_slug?: string;
  /** accepted for the reference's clients; an export holds every matching row */
  page_size?: number;
  current_page?: number;
}

export const EXPORT_FIELDS = [
  'id', 'trace_id', 'created_at', 'request', 'response', 'is_success', 'ai_org', 'ai_model', 'req_units', 'res_units', 'total_units',
  'request_url', 'cost', 'cost_currency', 'response_time', 'response_status_code', 'mode', 'config', 'prompt_slug', 'metadata',
] as const;
export type ExportField = (typeof EXPORT_FIELDS)[number];

export interface CreateExportInput {
  /** a workspace id or slug; absent: the caller's workspace (workspace keys) or every workspace (admin keys) */
  workspace_id?: string;
  filters: ExportFiltersInput;
  requested_data: ExportField[];
  description?: string;
}

export interface UpdateExportInput {
  workspace_id?: string;
  filters: ExportFiltersInput;
  requested_data?: ExportField[];
  description?: string;
}
