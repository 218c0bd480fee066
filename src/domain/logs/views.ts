/**
 * Request log rows as the API shows them: the reference's LogObject (api-surface §3.21) for one log, a light item
 * without bodies or headers for lists. Costs are USD cents (the reference's analytics unit), exact from the
 * stored USD decimal; unknown stays null.
 */
import { CENTS_SCALE, formatScaledShort, parseScaled, USD_SCALE } from '../../pricing/money.ts';
import type { LogExportRow } from '../../storage/repositories/log-exports.ts';
import type { LogListRow } from '../../storage/repositories/log-queries.ts';
import type { RequestLogRow } from '../../storage/repositories/request-logs.ts';

export function costCents(usd: string | null): number | null {
  if (usd === null) return null;
  const pico = parseScaled(usd, USD_SCALE);
  // picodollars -> cents: 10^10 picodollars in a cent
  return pico === undefined ? null : Number(formatScaledShort(pico, CENTS_SCALE));
}

/** A stored body: the JSON it was, or its text when it was cut (no longer JSON) or never was. */
export function bodyValue(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `config.targets[1]` -> `$.config.targets[1]`; no config: `$` (the request itself was the only option). */
function optionJsonPath(path: string | null): string {
  if (!path) return '$';
  return path.startsWith('$') ? path : `$.${path}`;
}

function metadataArrays(metadata: Record<string, unknown>): { keys: string[]; values: string[] } {
  const entries = Object.entries(metadata);
  return { keys: entries.map(([key]) => key), values: entries.map(([, value]) => (typeof value === 'string' ? value : JSON.stringify(value))) };
}

/** The reference's AnalyticsMetrics, from a row, plus the attempts and timings the reference has no field for. */
export function metricsView(row: RequestLogRow) {
  const { keys, values } = metadataArrays(row.metadata);
  return {
    id: row.id,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    prompt_id: row.promptId,
    prompt_version_id: row.promptVersionId,
    prompt_slug: row.promptSlug,
    config_id: row.configId,
    config_version_id: row.configVersionId,
    created_at: row.createdAt.toISOString(),
    is_success: row.isSuccess,
    ai_org: row.provider,
    ai_model: row.model,
    req_units: row.promptTokens,
    res_units: row.completionTokens,
    total_units: row.totalTokens,
    cached_units: row.cachedTokens,
    cache_write_units: row.cacheWriteTokens,
    reasoning_units: row.reasoningTokens,
    cost: costCents(row.cost),
    saved_cost: costCents(row.savedCost),
    cost_currency: 'USD',
    request_url: row.requestUrl ?? row.path,
    request_method: row.method,
    response_status_code: row.status,
    response_time: row.responseTimeMs,
    is_proxy_call: row.route === 'passthrough' || row.route === 'proxy',
    is_custom: row.isCustom,
    cache_status: row.cacheStatus,
    cache_type: row.cacheStatus === 'SEMANTIC HIT' ? 'semantic' : row.cacheStatus === 'HIT' ? 'simple' : null,
    stream_mode: row.streamMode ? 1 : 0,
    retry_success_count: row.retryCount,
    trace_id: row.traceId,
    span_id: row.spanId,
    span_name: row.spanName,
    parent_span_id: row.parentSpanId,
    mode: row.mode,
    virtual_key: row.providerSlug,
    integration_id: row.integrationId,
    last_used_option_index: row.lastUsedOptionIndex,
    api_key_id: row.apiKeyId,
    user_id: row.userId,
    route: row.route,
    'metadata.key': keys,
    'metadata.value': values,
    metadata: row.metadata,
    upstream_response_time: row.upstreamTimeMs,
    first_byte_time: row.firstByteMs,
    queue_time: row.queueTimeMs,
    attempts: row.attempts,
    hook_results: row.hookResults,
    error: row.error,
    bodies_truncated: row.bodiesTruncated,
  };
}

/** GET /logs/{logId}: the whole record. */
export function logObjectView(row: RequestLogRow) {
  return {
    _id: row.id,
    id: row.id,
    object: 'log' as const,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    created_at: row.createdAt.toISOString(),
    request: {
      url: row.requestUrl ?? row.path,
      method: row.method,
      headers: row.requestHeaders ?? {},
      body: bodyValue(row.requestBody),
      gatewayHeaders: row.gatewayHeaders ?? {},
    },
    response: {
      status: row.status,
      headers: row.responseHeaders ?? {},
      body: bodyValue(row.responseBody),
      responseTime: row.responseTimeMs,
      lastUsedOptionJsonPath: optionJsonPath(row.lastUsedOptionIndex),
    },
    bodies_truncated: row.bodiesTruncated,
    metrics: metricsView(row),
  };
}

/** One item of GET /logs: what a table of logs shows, no bodies or headers. */
export function logListItemView(row: LogListRow) {
  return {
    id: row.id,
    object: 'log' as const,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    api_key_id: row.apiKeyId,
    created_at: row.createdAt.toISOString(),
    trace_id: row.traceId,
    span_id: row.spanId,
    span_name: row.spanName,
    route: row.route,
    request_method: row.method,
    request_url: row.requestUrl ?? row.path,
    ai_org: row.provider,
    ai_model: row.model,
    response_status_code: row.status,
    is_success: row.isSuccess,
    stream_mode: row.streamMode ? 1 : 0,
    response_time: row.responseTimeMs,
    cache_status: row.cacheStatus,
    req_units: row.promptTokens,
    res_units: row.completionTokens,
    total_units: row.totalTokens,
    cost: costCents(row.cost),
    cost_currency: 'USD' as const,
    metadata: row.metadata,
    is_custom: row.isCustom,
  };
}

/** The reference's ExportItem, with the progress the reference has no field for. */
export function exportItemView(row: LogExportRow) {
  return {
    id: row.id,
    object: 'export' as const,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    filters: row.filters,
    requested_data: row.requestedData,
    status: row.status,
    description: row.description,
    total: row.total,
    exported_rows: row.exportedRows,
    error: row.error,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    last_updated_at: row.lastUpdatedAt.toISOString(),
  };
}
