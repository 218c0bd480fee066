/**
 * The relational schema (Drizzle). One schema and one SQL dialect serve both PGlite (embedded default) and
 * PostgreSQL. After changing it run `npm run db:generate` to add a migration under src/storage/migrations.
 */
import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const organisations = pgTable('organisations', {
  id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const workspaces = pgTable(
  'workspaces',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    isDefault: boolean('is_default').notNull().default(false),
    /** active | archived */
    status: text('status').notNull().default('active'),
    defaults: jsonb('defaults').$type<Record<string, unknown>>().notNull().default({}),
    usageLimits: jsonb('usage_limits').$type<unknown[]>().notNull().default([]),
    rateLimits: jsonb('rate_limits').$type<unknown[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('workspaces_org_slug_unique').on(table.organisationId, table.slug)],
);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    /** organisation role: owner | admin | member */
    role: text('role').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('users_org_email_unique').on(table.organisationId, table.email)],
);

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** workspace role: manager | member */
    role: text('role').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.userId] })],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    /** null for organisation (admin) keys */
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    /** 'organisation' (admin key) | 'workspace' */
    type: text('type').notNull(),
    /** 'service' | 'user' */
    subType: text('sub_type').notNull(),
    /** the user a 'user' key belongs to */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    description: text('description'),
    /** SHA-256 of the secret, hex; the secret itself is never stored */
    keyHash: text('key_hash').notNull(),
    /** after a rotation: the old secret's hash, valid until previousKeyExpiresAt */
    previousKeyHash: text('previous_key_hash'),
    previousKeyExpiresAt: timestamp('previous_key_expires_at', { withTimezone: true, mode: 'date' }),
    /** first and last characters of the secret, for masked display */
    maskedKey: text('masked_key').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull().default([]),
    /** the organisation role the key acts with when created on behalf of a role (bootstrap: owner) */
    role: text('role'),
    status: text('status').notNull().default('active'),
    rateLimits: jsonb('rate_limits').$type<unknown[] | null>(),
    usageLimits: jsonb('usage_limits').$type<Record<string, unknown> | null>(),
    defaults: jsonb('defaults').$type<Record<string, unknown> | null>(),
    alertEmails: jsonb('alert_emails').$type<string[] | null>(),
    rotationPolicy: jsonb('rotation_policy').$type<Record<string, unknown> | null>(),
    /** ui | api | auto */
    creationMode: text('creation_mode').notNull().default('api'),
    createdBy: text('created_by'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('api_keys_hash_unique').on(table.keyHash),
    index('api_keys_previous_hash_idx').on(table.previousKeyHash),
    index('api_keys_org_idx').on(table.organisationId),
    index('api_keys_workspace_idx').on(table.workspaceId),
  ],
);

export const userInvites = pgTable(
  'user_invites',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    /** organisation role given on acceptance: admin | member */
    role: text('role').notNull(),
    /** [{ id: workspace uuid, role: admin | manager | member }] */
    workspaces: jsonb('workspaces').$type<Array<{ id: string; role: string }>>().notNull().default([]),
    workspaceApiKeyDetails: jsonb('workspace_api_key_details').$type<{ scopes: string[] } | null>(),
    /** SHA-256 of the invite token; the token is only in the invite link */
    tokenHash: text('token_hash').notNull(),
    /** pending | cancelled | accepted (expired is computed from expires_at) */
    status: text('status').notNull().default('pending'),
    invitedBy: text('invited_by'),
    acceptedUserId: uuid('accepted_user_id'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    uniqueIndex('user_invites_token_unique').on(table.tokenHash),
    index('user_invites_org_email_idx').on(table.organisationId, table.email),
  ],
);

/** Append-only: the API offers no update or delete of audit records. */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id').notNull(),
    workspaceId: uuid('workspace_id'),
    timestamp: timestamp('timestamp', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** api_key | user */
    userType: text('user_type').notNull(),
    /** the acting user's id (JWT or user key), when there is one */
    userId: uuid('user_id'),
    apiKeyId: uuid('api_key_id'),
    /** e.g. api_keys.create, workspaces.update, user_invites.resend */
    action: text('action').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id'),
    method: text('method').notNull(),
    uri: text('uri').notNull(),
    requestId: text('request_id').notNull(),
    /** JSON text with secrets masked */
    requestBody: text('request_body'),
    queryParams: text('query_params'),
    requestHeaders: text('request_headers'),
    clientIp: text('client_ip'),
    responseStatusCode: integer('response_status_code').notNull(),
    /** success | denied | failed */
    outcome: text('outcome').notNull(),
  },
  (table) => [
    index('audit_logs_org_time_idx').on(table.organisationId, table.timestamp),
    index('audit_logs_action_idx').on(table.action),
  ],
);

/**
 * Guardrails (api-surface §3.14): a named list of checks plus what to do with their outcome. A null workspace_id
 * is organisation-wide. DELETE archives; slugs are unique among the organisation's active guardrails, so an
 * archived guardrail's slug can be given to a new one.
 */
export const guardrails = pgTable(
  'guardrails',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    /** null: organisation-wide */
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    /** GuardrailCheck[]: [{ id, parameters, name?, is_enabled }] as validated by the check registry */
    checks: jsonb('checks').$type<unknown[]>().notNull(),
    /** GuardrailActions with every default filled in */
    actions: jsonb('actions').$type<Record<string, unknown>>().notNull(),
    /** active | archived */
    status: text('status').notNull().default('active'),
    /** the acting user's id, or the API key's id when no user acted */
    createdBy: text('created_by').notNull(),
    updatedBy: text('updated_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('guardrails_org_slug_active_unique').on(table.organisationId, table.slug).where(sql`${table.status} = 'active'`),
    index('guardrails_org_workspace_idx').on(table.organisationId, table.workspaceId),
  ],
);

/**
 * Saved configs (api-surface §3.1): a named routing config, referenced by id or slug in x-gateway-config. Every
 * create or update writes a new row of config_versions; `current_version_id` is the one requests use. A null
 * workspace_id is organisation-wide. DELETE archives; slugs are unique among the organisation's active configs.
 */
export const configs = pgTable(
  'configs',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    /** null: organisation-wide */
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    /** the workspace's default config (api-surface: `isDefault` 0/1) */
    isDefault: boolean('is_default').notNull().default(false),
    /** active | archived */
    status: text('status').notNull().default('active'),
    currentVersionId: uuid('current_version_id'),
    /** the acting user's id, or the API key's id when no user acted */
    ownerId: text('owner_id').notNull(),
    updatedBy: text('updated_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('configs_org_slug_active_unique').on(table.organisationId, table.slug).where(sql`${table.status} = 'active'`),
    index('configs_org_workspace_idx').on(table.organisationId, table.workspaceId),
  ],
);

/** Every version of a config, newest last; never changed once written. */
export const configVersions = pgTable(
  'config_versions',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    configId: uuid('config_id')
      .notNull()
      .references(() => configs.id, { onDelete: 'cascade' }),
    /** the config object as validated by the routing config schema */
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('config_versions_config_idx').on(table.configId, table.createdAt)],
);

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

const optionalTime = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** An organisation's (or one workspace's) credentials for one AI provider: the vault. Secrets are sealed. */
export const integrations = pgTable(
  'integrations',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    /** set: an integration of that workspace only */
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** the provider name in the registry (openai, anthropic, bedrock ...) */
    aiProviderId: text('ai_provider_id').notNull(),
    /** active | archived */
    status: text('status').notNull().default('active'),
    /** the provider key, sealed (secrets/cipher.ts) */
    sealedKey: text('sealed_key'),
    maskedKey: text('masked_key'),
    /** provider settings (custom host, Azure, Vertex, Bedrock fields); secret fields sealed */
    configurations: jsonb('configurations').$type<Record<string, unknown>>().notNull().default({}),
    secretMappings: jsonb('secret_mappings').$type<unknown[]>().notNull().default([]),
    pricingAdjustments: jsonb('pricing_adjustments').$type<Record<string, unknown> | null>(),
    allowAllModels: boolean('allow_all_models').notNull().default(true),
    globalWorkspaceAccess: jsonb('global_workspace_access').$type<Record<string, unknown> | null>(),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('integrations_org_slug_active_unique').on(table.organisationId, table.slug).where(sql`${table.status} = 'active'`)],
);

export const integrationModels = pgTable(
  'integration_models',
  {
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name'),
    enabled: boolean('enabled').notNull().default(true),
    isCustom: boolean('is_custom'),
    isFinetune: boolean('is_finetune'),
    baseModelSlug: text('base_model_slug'),
    configurations: jsonb('configurations').$type<Record<string, unknown> | null>(),
    /** a custom or negotiated price for this model on this integration */
    pricingConfig: jsonb('pricing_config').$type<Record<string, unknown> | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.integrationId, table.slug] })],
);

export const integrationWorkspaces = pgTable(
  'integration_workspaces',
  {
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(true),
    usageLimits: jsonb('usage_limits').$type<unknown[] | null>(),
    rateLimits: jsonb('rate_limits').$type<unknown[] | null>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.integrationId, table.workspaceId] })],
);

/** A workspace's handle on an integration, addressed as `@slug`; the legacy virtual keys are the same records. */
export const providers = pgTable(
  'providers',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    note: text('note'),
    /** active | archived (exhausted and expired are read from usage and expires_at) */
    status: text('status').notNull().default('active'),
    usageLimits: jsonb('usage_limits').$type<Record<string, unknown> | null>(),
    rateLimits: jsonb('rate_limits').$type<unknown[] | null>(),
    expiresAt: optionalTime('expires_at'),
    /** model settings of a legacy virtual key (deployment config ...) */
    modelConfig: jsonb('model_config').$type<Record<string, unknown>>().notNull().default({}),
    secretMappings: jsonb('secret_mappings').$type<unknown[]>().notNull().default([]),
    /** created through the legacy /virtual-keys group */
    isVirtualKey: boolean('is_virtual_key').notNull().default(false),
    usageResetAt: optionalTime('usage_reset_at'),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('providers_workspace_slug_active_unique').on(table.workspaceId, table.slug).where(sql`${table.status} = 'active'`)],
);

/** A named secret: held by an external manager (AWS, Azure, Vault), sealed here, or read from the environment. */
export const secretReferences = pgTable(
  'secret_references',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** aws_sm | azure_kv | hashicorp_vault | sealed | env */
    managerType: text('manager_type').notNull(),
    /** the manager's credentials (or the sealed value), sealed as JSON */
    sealedAuthConfig: text('sealed_auth_config'),
    secretPath: text('secret_path').notNull(),
    secretKey: text('secret_key'),
    allowAllWorkspaces: boolean('allow_all_workspaces').notNull().default(true),
    allowedWorkspaces: jsonb('allowed_workspaces').$type<string[]>().notNull().default([]),
    tags: jsonb('tags').$type<Record<string, string> | null>(),
    status: text('status').notNull().default('active'),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('secret_references_org_slug_unique').on(table.organisationId, table.slug)],
);

export const rateLimitPolicies = pgTable(
  'rate_limit_policies',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name'),
    conditions: jsonb('conditions').$type<Array<{ key: string; value: string }>>().notNull(),
    groupBy: jsonb('group_by').$type<Array<{ key: string }>>().notNull(),
    /** requests | tokens */
    type: text('type').notNull(),
    /** rpm | rph | rpd */
    unit: text('unit').notNull(),
    value: doublePrecision('value').notNull(),
    /** when the counter store (Redis) cannot be reached: `open` lets requests through, `closed` refuses them */
    onStoreFailure: text('on_store_failure').notNull().default('open'),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('rate_limit_policies_org_idx').on(table.organisationId, table.status)],
);

export const usageLimitPolicies = pgTable(
  'usage_limit_policies',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name'),
    conditions: jsonb('conditions').$type<Array<{ key: string; value: string }>>().notNull(),
    groupBy: jsonb('group_by').$type<Array<{ key: string }>>().notNull(),
    /** cost | tokens */
    type: text('type').notNull(),
    /** USD for cost, tokens for tokens, as an exact decimal */
    creditLimit: numeric('credit_limit', { precision: 24, scale: 12 }).notNull(),
    alertThreshold: numeric('alert_threshold', { precision: 24, scale: 12 }),
    /** weekly | monthly; null: cumulative */
    periodicReset: text('periodic_reset'),
    periodicResetDays: integer('periodic_reset_days'),
    nextUsageResetAt: optionalTime('next_usage_reset_at'),
    lastResetAt: optionalTime('last_reset_at'),
    /** when the counter store (Redis) cannot be reached: `closed` (the default for money) refuses, `open` lets through */
    onStoreFailure: text('on_store_failure').notNull().default('closed'),
    status: text('status').notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('usage_limit_policies_org_idx').on(table.organisationId, table.status)],
);

/** One group-by value of a usage limits policy (`metadata._user:ada`): its settled usage and alert state. */
export const usageLimitEntities = pgTable(
  'usage_limit_entities',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    policyId: uuid('policy_id')
      .notNull()
      .references(() => usageLimitPolicies.id, { onDelete: 'cascade' }),
    valueKey: text('value_key').notNull(),
    currentUsage: numeric('current_usage', { precision: 24, scale: 12 }).notNull().default('0'),
    /** active | exhausted */
    status: text('status').notNull().default('active'),
    periodStart: optionalTime('period_start'),
    thresholdAlertedAt: optionalTime('threshold_alerted_at'),
    exhaustedAlertedAt: optionalTime('exhausted_alerted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('usage_limit_entities_policy_value_unique').on(table.policyId, table.valueKey)],
);

/** Prices an organisation sets (for all its workspaces, or one): custom models and negotiated rates. */
export const modelPrices = pgTable(
  'model_prices',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    /** the pay_as_you_go shape of GET /model-configs/pricing, in USD cents per token */
    pricing: jsonb('pricing').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('model_prices_lookup_idx').on(table.organisationId, table.provider, table.model)],
);

