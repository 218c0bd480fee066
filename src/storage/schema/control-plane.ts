/** Organisations, workspaces, users and their memberships, API keys, invites and the audit log. */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';

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
