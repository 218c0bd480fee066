/** Saved guardrails and saved configs with their versions. */
import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';
import { organisations, workspaces } from './control-plane.ts';

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
