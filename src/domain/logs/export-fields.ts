/**
 * An export's `requested_data` (api-surface §3.22 LogExportsRequestedData): which fields each exported line holds,
 * in the order asked. A line is a JSON object keyed by those names; the CSV download has one column each.
 */
import type { ExportRow } from '../../storage/repositories/log-queries.ts';
import type { ExportField } from './inputs.ts';
import { bodyValue, costCents } from './views.ts';

/** When nothing is asked: everything but the bodies. */
export const DEFAULT_EXPORT_FIELDS: readonly ExportField[] = [
  'id', 'trace_id', 'created_at', 'is_success', 'ai_org', 'ai_model', 'req_units', 'res_units', 'total_units', 'request_url', 'cost', 'cost_currency',
  'response_time', 'response_status_code', 'mode', 'config', 'prompt_slug', 'metadata',
];

const FIELD: Record<ExportField, (row: ExportRow) => unknown> = {
  id: (row) => row.id,
  trace_id: (row) => row.traceId,
  created_at: (row) => row.createdAt.toISOString(),
  request: (row) => ({ url: row.requestUrl ?? row.path, method: row.method, headers: row.requestHeaders ?? {}, body: bodyValue(row.requestBody) }),
  response: (row) => ({ status: row.status, headers: row.responseHeaders ?? {}, body: bodyValue(row.responseBody), response_time: row.responseTimeMs }),
  is_success: (row) => row.isSuccess,
  ai_org: (row) => row.provider,
  ai_model: (row) => row.model,
  req_units: (row) => row.promptTokens,
  res_units: (row) => row.completionTokens,
  total_units: (row) => row.totalTokens,
  request_url: (row) => row.requestUrl ?? row.path,
  cost: (row) => costCents(row.cost),
  cost_currency: () => 'USD',
  response_time: (row) => row.responseTimeMs,
  response_status_code: (row) => row.status,
  mode: (row) => row.mode,
  config: (row) => row.configId,
  prompt_slug: (row) => row.promptSlug,
  metadata: (row) => row.metadata,
};

export function exportFieldsOf(requested: readonly ExportField[]): readonly ExportField[] {
  return requested.length > 0 ? [...new Set(requested)] : DEFAULT_EXPORT_FIELDS;
}

export function wantsBodies(fields: readonly ExportField[]): boolean {
  return fields.includes('request') || fields.includes('response');
}

/** One JSON Lines line (with its newline). */
export function exportLine(row: ExportRow, fields: readonly ExportField[]): string {
  const line: Record<string, unknown> = {};
  for (const field of fields) line[field] = FIELD[field](row);
  return `${JSON.stringify(line)}\n`;
}

/** One CSV record from a stored line: objects as their JSON text, null as an empty cell. */
export function csvRecord(line: Record<string, unknown>, fields: readonly ExportField[]): string[] {
  return fields.map((field) => {
    const value = line[field];
    if (value === null || value === undefined) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}
