/**
 * Prompts (api-surface §3.10-3.13): collections (folders), prompts with immutable versions, labels that point at
 * one version of a prompt, and partials (reusable snippets with versions of their own).
 */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';
import { organisations, workspaces } from './control-plane.ts';

/** A folder of prompts in one workspace; each workspace has one default collection, created on first use. */
export const promptCollections = pgTable(
  'prompt_collections',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    parentCollectionId: uuid('parent_collection_id').references((): AnyPgColumn => promptCollections.id, { onDelete: 'cascade' }),
    isDefault: boolean('is_default').notNull().default(false),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('prompt_collections_workspace_slug_active_unique').on(table.workspaceId, table.slug).where(sql`${table.status} = 'active'`),
    uniqueIndex('prompt_collections_workspace_default_unique')
      .on(table.workspaceId)
      .where(sql`${table.isDefault} and ${table.status} = 'active'`),
    index('prompt_collections_parent_idx').on(table.parentCollectionId),
  ],
);

/** A named pointer (production, staging ...): organisation-wide when workspace_id is null (`is_universal`). */
export const promptLabels = pgTable(
  'prompt_labels',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    colorCode: text('color_code'),
    isUniversal: boolean('is_universal').notNull().default(false),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('prompt_labels_org_name_active_unique')
      .on(table.organisationId, table.name)
      .where(sql`${table.workspaceId} is null and ${table.status} = 'active'`),
    uniqueIndex('prompt_labels_workspace_name_active_unique')
      .on(table.workspaceId, table.name)
      .where(sql`${table.workspaceId} is not null and ${table.status} = 'active'`),
  ],
);

/** A prompt: what stays the same across its versions. `default_version` is the one served when none is asked for. */
export const prompts = pgTable(
  'prompts',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    collectionId: uuid('collection_id')
      .notNull()
      .references(() => promptCollections.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    /** the provider to call: a provider slug (`@slug` or bare) or a legacy virtual key; changes without a new version */
    virtualKey: text('virtual_key'),
    defaultVersion: integer('default_version').notNull().default(1),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('prompts_workspace_slug_active_unique').on(table.workspaceId, table.slug).where(sql`${table.status} = 'active'`),
    index('prompts_collection_idx').on(table.collectionId),
  ],
);

/** One immutable version of a prompt's template and parameters; only its label moves. */
export const promptVersions = pgTable(
  'prompt_versions',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    promptId: uuid('prompt_id')
      .notNull()
      .references(() => prompts.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    /** the mustache template: a JSON array of messages, or plain text when `is_raw_template` */
    template: text('template').notNull(),
    parameters: jsonb('parameters').$type<Record<string, unknown>>().notNull().default({}),
    model: text('model'),
    functions: jsonb('functions').$type<unknown[]>(),
    tools: jsonb('tools').$type<unknown[]>(),
    toolChoice: jsonb('tool_choice').$type<unknown>(),
    templateMetadata: jsonb('template_metadata').$type<Record<string, unknown>>(),
    isRawTemplate: boolean('is_raw_template').notNull().default(false),
    description: text('description'),
    labelId: uuid('label_id').references(() => promptLabels.id, { onDelete: 'set null' }),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('prompt_versions_prompt_version_unique').on(table.promptId, table.version),
    // a label points at one version of a prompt: moving it clears the old version in the same transaction
    uniqueIndex('prompt_versions_prompt_label_unique').on(table.promptId, table.labelId).where(sql`${table.labelId} is not null`),
  ],
);

/** A reusable template snippet, included by its slug (`{{> slug}}`) in prompts of the same workspace. */
export const promptPartials = pgTable(
  'prompt_partials',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    collectionId: uuid('collection_id').references(() => promptCollections.id, { onDelete: 'set null' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    defaultVersion: integer('default_version').notNull().default(1),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('prompt_partials_workspace_slug_active_unique').on(table.workspaceId, table.slug).where(sql`${table.status} = 'active'`)],
);

export const promptPartialVersions = pgTable(
  'prompt_partial_versions',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    partialId: uuid('partial_id')
      .notNull()
      .references(() => promptPartials.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    template: text('template').notNull(),
    description: text('description'),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('prompt_partial_versions_partial_version_unique').on(table.partialId, table.version)],
);
