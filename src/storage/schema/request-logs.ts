/** The request log: one row per inference, models or pass-through request. */
import { boolean, doublePrecision, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The request log: one row per inference, pass-through or custom request, written off the request path in batches.
 * Columns follow the reference's analytics row (api-surface §3.21 AnalyticsMetrics). The table is partitioned by
 * day on `created_at` (plain SQL in migration 0006; src/logging/partitions.ts creates days ahead and drops the
 * ones past retention), so its primary key carries `created_at`.
 */
export const requestLogs = pgTable(
  'request_logs',
  {
    id: uuid('id').notNull(),
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id'),
    apiKeyId: uuid('api_key_id'),
    userId: uuid('user_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    traceId: text('trace_id').notNull(),
    spanId: text('span_id'),
    parentSpanId: text('parent_span_id'),
    spanName: text('span_name'),
    /** the route kind: chat, completions, embeddings, rerank, passthrough ... */
    route: text('route').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    provider: text('provider'),
    model: text('model'),
    status: integer('status').notNull(),
    isSuccess: boolean('is_success').notNull(),
    streamMode: boolean('stream_mode').notNull().default(false),
    /** ms from the request's arrival to the answer's end */
    responseTimeMs: integer('response_time_ms').notNull(),
    /** HIT | SEMANTIC HIT | MISS | REFRESH | DISABLED */
    cacheStatus: text('cache_status'),
    retryCount: integer('retry_count').notNull().default(0),
    /** the config path of the target that answered (x-gateway-last-used-option-index) */
    lastUsedOptionIndex: text('last_used_option_index'),
    /** the saved config used, when the request named one */
    configId: uuid('config_id'),
    configVersionId: uuid('config_version_id'),
    promptTokens: integer('prompt_tokens'),
    completionTokens: integer('completion_tokens'),
    totalTokens: integer('total_tokens'),
    cachedTokens: integer('cached_tokens'),
    cacheWriteTokens: integer('cache_write_tokens'),
    reasoningTokens: integer('reasoning_tokens'),
    /** USD as an exact decimal; null when no price is known (never 0 for unknown) */
    cost: numeric('cost', { precision: 24, scale: 12 }),
    /** what a cache hit saved (USD), the cost the answer had when it was stored */
    savedCost: numeric('saved_cost', { precision: 24, scale: 12 }),
    /** the saved provider (`@slug`, a virtual key) the request used, and its integration */
    providerSlug: text('provider_slug'),
    integrationId: uuid('integration_id'),
    /** x-gateway-metadata */
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /** guardrail verdicts: { before_request_hooks: [...], after_request_hooks: [...] } */
    hookResults: jsonb('hook_results').$type<Record<string, unknown> | null>(),
    /** the error the client got, when the request failed: { message, type, code } */
    error: jsonb('error').$type<Record<string, unknown> | null>(),
    /** ms spent waiting on providers: from the first attempt's send to the chosen answer's end */
    upstreamTimeMs: integer('upstream_time_ms'),
    /** ms from the request's arrival to the first byte (a stream's first token) the client got */
    firstByteMs: integer('first_byte_ms'),
    /** ms from the request's arrival to its first upstream send: queueing and the gateway's own work */
    queueTimeMs: integer('queue_time_ms'),
    /** every upstream try, fallbacks and retries: [{path, provider, model, status, duration_ms, error, retry}] */
    attempts: jsonb('attempts').$type<Array<Record<string, unknown>>>().notNull().default([]),
    /** single | fallback | loadbalance | conditional */
    mode: text('mode'),
    /** the request body as received (JSON text), cut at the body cap; null when bodies are not logged */
    requestBody: text('request_body'),
    /** the answer's body (a stream reassembled into one object), cut at the body cap */
    responseBody: text('response_body'),
    /** a body was cut at the cap */
    bodiesTruncated: boolean('bodies_truncated').notNull().default(false),
    /** request headers, sensitive ones hashed and credentials left out */
    requestHeaders: jsonb('request_headers').$type<Record<string, string>>(),
    /** the x-gateway-* headers that were sent, masked the same way */
    gatewayHeaders: jsonb('gateway_headers').$type<Record<string, string>>(),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    /** inserted through POST /v1/logs rather than proxied */
    isCustom: boolean('is_custom').notNull().default(false),
    /** the full URL a custom log names */
    requestUrl: text('request_url'),
    promptId: uuid('prompt_id'),
    promptSlug: text('prompt_slug'),
    promptVersionId: uuid('prompt_version_id'),
  },
  (table) => [
    // a lookup by id alone is served by the primary key (id leads it): no index of its own, one less per row written
    primaryKey({ columns: [table.id, table.createdAt] }),
    // the lists' and exports' order (created_at, then id, newest first) read straight from either index: no sort,
    // however few rows the planner expects (docs/performance.md, eleventh session)
    index('request_logs_org_time_idx').on(table.organisationId, table.createdAt, table.id),
    index('request_logs_org_ws_time_idx').on(table.organisationId, table.workspaceId, table.createdAt, table.id),
    index('request_logs_trace_idx').on(table.traceId),
  ],
);

/** Feedback on a trace (api-surface §3.24): weighted feedback = value x weight. */
export const feedback = pgTable(
  'feedback',
  {
    id: uuid('id').primaryKey(),
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    traceId: text('trace_id').notNull(),
    /** -10..10 */
    value: integer('value').notNull(),
    /** 0..1 */
    weight: doublePrecision('weight').notNull().default(1),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    apiKeyId: uuid('api_key_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('feedback_org_trace_idx').on(table.organisationId, table.traceId), index('feedback_org_time_idx').on(table.organisationId, table.createdAt)],
);

/** Log export jobs (api-surface §3.22): draft -> in_progress -> success | failed, or stopped. */
export const logExports = pgTable(
  'log_exports',
  {
    id: uuid('id').primaryKey(),
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id'),
    filters: jsonb('filters').$type<Record<string, unknown>>().notNull().default({}),
    requestedData: jsonb('requested_data').$type<string[]>().notNull().default([]),
    status: text('status').notNull().default('draft'),
    description: text('description').notNull().default(''),
    /** rows matched when the job was made or last started */
    total: integer('total').notNull().default(0),
    /** rows written so far */
    exportedRows: integer('exported_rows').notNull().default(0),
    error: text('error'),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUpdatedAt: timestamp('last_updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('log_exports_org_idx').on(table.organisationId, table.createdAt)],
);

/**
 * An export's result, in order: JSON Lines text in chunks of a bounded number of rows, so neither writing nor
 * downloading holds the whole export in memory, and any node can serve the download.
 */
export const logExportChunks = pgTable(
  'log_export_chunks',
  {
    exportId: uuid('export_id').notNull().references(() => logExports.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    rows: integer('rows').notNull(),
    data: text('data').notNull(),
  },
  (table) => [primaryKey({ columns: [table.exportId, table.seq] })],
);
