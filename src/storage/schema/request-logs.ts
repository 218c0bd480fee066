/** The request log: one row per inference, models or pass-through request. */
import { boolean, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The request log: one row per inference request, written off the request path in batches. Columns follow the
 * reference's analytics row (api-surface §3.21 AnalyticsMetrics) where they exist now; bodies are not stored.
 */
export const requestLogs = pgTable(
  'request_logs',
  {
    id: uuid('id').primaryKey(),
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
  },
  (table) => [
    index('request_logs_org_time_idx').on(table.organisationId, table.createdAt),
    index('request_logs_trace_idx').on(table.traceId),
  ],
);
