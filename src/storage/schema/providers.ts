/** Integrations (the credential vault) with their models and workspaces, providers (and legacy virtual keys), secret references. */
import { sql } from 'drizzle-orm';
import { boolean, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt, optionalTime } from './columns.ts';
import { organisations, workspaces } from './control-plane.ts';

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
