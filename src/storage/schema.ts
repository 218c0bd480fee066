/**
 * The relational schema (Drizzle). One schema and one SQL dialect serve both PGlite (embedded default) and
 * PostgreSQL. After changing it run `npm run db:generate` to add a migration under src/storage/migrations.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

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
    defaults: jsonb('defaults').$type<Record<string, unknown>>().notNull().default({}),
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
    /** first and last characters of the secret, for masked display */
    maskedKey: text('masked_key').notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull().default([]),
    /** the organisation role the key acts with when created on behalf of a role (bootstrap: owner) */
    role: text('role'),
    status: text('status').notNull().default('active'),
    rateLimits: jsonb('rate_limits').$type<unknown[] | null>(),
    usageLimits: jsonb('usage_limits').$type<Record<string, unknown> | null>(),
    defaults: jsonb('defaults').$type<Record<string, unknown> | null>(),
    createdBy: text('created_by'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('api_keys_hash_unique').on(table.keyHash),
    index('api_keys_org_idx').on(table.organisationId),
    index('api_keys_workspace_idx').on(table.workspaceId),
  ],
);
