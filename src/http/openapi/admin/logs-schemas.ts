/**
 * Schemas of the Logs and Logs Export groups: the request bodies (the validating constants themselves), the
 * LogObject, list items, ExportItem and the small answers. Spread into components.schemas by document.ts.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../../../core/schemas/common.ts';
import { EXPORT_FIELDS } from '../../../domain/logs/inputs.ts';
import { CreateLogExportSchema, CustomLogsSchema, EmptyLogExportActionSchema, UpdateLogExportSchema } from '../../admin/logs/schemas.ts';
import { asComponent } from '../components.ts';
import { NullableString, NullableUuid, Timestamp, Uuid } from '../common-schemas.ts';
import type { JsonSchema } from '../types.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableInteger = Nullable(Type.Integer());
const Cents = Nullable(Type.Number({ description: 'USD cents; null when no price is known' }));
const StringMap = Type.Record(Type.String(), Type.String());
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'x-gateway-metadata (or a custom log\'s metadata)' });

const Attempt = Type.Object({}, {
  additionalProperties: true,
  description: 'one upstream try: path, provider, model, started_ms, duration_ms, status, error, retry',
});

const LogMetricsSchema = Type.Object({
  id: Uuid,
  organisation_id: Uuid,
  workspace_id: NullableUuid,
  prompt_id: NullableUuid,
  prompt_version_id: NullableUuid,
  prompt_slug: NullableString,
  config_id: NullableUuid,
  config_version_id: NullableUuid,
  created_at: Timestamp,
  is_success: Type.Boolean(),
  ai_org: NullableString,
  ai_model: NullableString,
  req_units: NullableInteger,
  res_units: NullableInteger,
  total_units: NullableInteger,
  cached_units: NullableInteger,
  cache_write_units: NullableInteger,
  reasoning_units: NullableInteger,
  cost: Cents,
  saved_cost: Cents,
  cost_currency: Type.Literal('USD'),
  request_url: Type.String(),
  request_method: Type.String(),
  response_status_code: Type.Integer(),
  response_time: Type.Integer({ description: 'ms from arrival to the answer\'s end' }),
  is_proxy_call: Type.Boolean(),
  is_custom: Type.Boolean(),
  cache_status: NullableString,
  cache_type: NullableString,
  stream_mode: Type.Integer({ minimum: 0, maximum: 1 }),
  retry_success_count: Type.Integer(),
  trace_id: Type.String(),
  span_id: NullableString,
  span_name: NullableString,
  parent_span_id: NullableString,
  mode: NullableString,
  virtual_key: NullableString,
  integration_id: NullableUuid,
  last_used_option_index: NullableString,
  api_key_id: NullableUuid,
  user_id: NullableUuid,
  route: Type.String(),
  'metadata.key': Type.Array(Type.String()),
  'metadata.value': Type.Array(Type.String()),
  metadata: Metadata,
  upstream_response_time: NullableInteger,
  first_byte_time: NullableInteger,
  queue_time: NullableInteger,
  attempts: Type.Array(Attempt),
  hook_results: Nullable(Type.Object({}, { additionalProperties: true })),
  error: Nullable(Type.Object({}, { additionalProperties: true })),
  bodies_truncated: Type.Boolean(),
}, { description: 'The reference\'s AnalyticsMetrics, plus the attempts and the timings (ms).' });

const LogObjectSchema = Type.Object({
  _id: Uuid,
  id: Uuid,
  object: Type.Literal('log'),
  organisation_id: Uuid,
  workspace_id: NullableUuid,
  created_at: Timestamp,
  request: Type.Object({
    url: Type.String(),
    method: Type.String(),
    headers: StringMap,
    body: Type.Unknown({ description: 'the JSON body; its text when it was cut at the cap; null when bodies were not logged' }),
    gatewayHeaders: StringMap,
  }),
  response: Type.Object({
    status: Type.Integer(),
    headers: StringMap,
    body: Type.Unknown(),
    responseTime: Type.Integer(),
    lastUsedOptionJsonPath: Type.String({ description: 'the config path of the target that answered, e.g. `$.config.targets[1]`; `$` without a config' }),
  }),
  bodies_truncated: Type.Boolean(),
  metrics: LogMetricsSchema,
}, { description: 'One request log record (the reference\'s LogObject). Credentials are masked, sensitive headers hashed.' });

const LogListItemSchema = Type.Object({
  id: Uuid,
  object: Type.Literal('log'),
  organisation_id: Uuid,
  workspace_id: NullableUuid,
  api_key_id: NullableUuid,
  created_at: Timestamp,
  trace_id: Type.String(),
  span_id: NullableString,
  span_name: NullableString,
  route: Type.String(),
  request_method: Type.String(),
  request_url: Type.String(),
  ai_org: NullableString,
  ai_model: NullableString,
  response_status_code: Type.Integer(),
  is_success: Type.Boolean(),
  stream_mode: Type.Integer({ minimum: 0, maximum: 1 }),
  response_time: Type.Integer(),
  cache_status: NullableString,
  req_units: NullableInteger,
  res_units: NullableInteger,
  total_units: NullableInteger,
  cost: Cents,
  cost_currency: Type.Literal('USD'),
  metadata: Metadata,
  is_custom: Type.Boolean(),
}, { description: 'A log in a list: no bodies and no headers (GET /logs/{logId} has them).' });

const LogListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Unsafe({ $ref: '#/components/schemas/LogListItem' })),
  next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next (older) page; null on the last page' })),
});

const LogExportSchema = Type.Object({
  id: Uuid,
  object: Type.Literal('export'),
  organisation_id: Uuid,
  workspace_id: NullableUuid,
  filters: Type.Object({}, { additionalProperties: true }),
  requested_data: Type.Array(StringEnum(EXPORT_FIELDS)),
  status: StringEnum(['draft', 'in_progress', 'success', 'failed', 'stopped'] as const),
  description: Type.String(),
  total: Type.Integer({ description: 'rows matching the filters when the export was made, changed or started' }),
  exported_rows: Type.Integer({ description: 'rows written so far' }),
  error: NullableString,
  created_by: NullableUuid,
  created_at: Timestamp,
  last_updated_at: Timestamp,
}, { description: 'The reference\'s ExportItem, with the progress.' });

const SCHEMAS = {
  CustomLogsRequest: CustomLogsSchema,
  CreateLogExportRequest: CreateLogExportSchema,
  UpdateLogExportRequest: UpdateLogExportSchema,
  LogExportActionRequest: EmptyLogExportActionSchema,
  LogObject: LogObjectSchema,
  LogListItem: LogListItemSchema,
  LogList: LogListSchema,
  LogExport: LogExportSchema,
  LogExportList: Type.Object({ object: Type.Literal('list'), total: Type.Integer(), data: Type.Array(Type.Unsafe({ $ref: '#/components/schemas/LogExport' })) }),
  LogExportSaved: Type.Object({ id: Uuid, total: Type.Integer(), object: Type.Literal('export') }),
  LogExportMessage: Type.Object({ message: Type.String(), object: Type.Literal('export') }),
  LogExportSignedUrl: Type.Object({ signed_url: Type.String({ format: 'uri', description: 'GET it without a key within 15 minutes' }) }),
} as const;

export type LogSchemaName = keyof typeof SCHEMAS;

export function logRef(name: LogSchemaName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

export function logComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, asComponent(name, schema)]));
}
