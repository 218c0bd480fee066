/**
 * MCP (api-surface §3.15-3.16): integrations (a remote MCP server's URL, transport and sealed credentials, with
 * the workspaces that may use it and the capabilities discovered from it) and servers (an integration's use in one
 * workspace, with its own allow-list of capabilities and per-user access).
 */
import { sql } from 'drizzle-orm';
import { boolean, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, optionalTime, updatedAt } from './columns.ts';
import { organisations, users, workspaces } from './control-plane.ts';

export const mcpIntegrations = pgTable(
  'mcp_integrations',
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
    url: text('url').notNull(),
    /** headers | none */
    authType: text('auth_type').notNull(),
    /** http (Streamable HTTP) */
    transport: text('transport').notNull(),
    /** `custom_headers` with every value sealed (secrets/cipher.ts) */
    configurations: jsonb('configurations').$type<Record<string, unknown>>().notNull().default({}),
    secretMappings: jsonb('secret_mappings').$type<unknown[]>().notNull().default([]),
    globalWorkspaceAccess: jsonb('global_workspace_access').$type<Record<string, unknown> | null>(),
    status: text('status').notNull().default('active'),
    /** what the upstream said of itself at the last sync (initialize) */
    serverName: text('server_name'),
    serverVersion: text('server_version'),
    protocolVersion: text('protocol_version'),
    capabilityFlags: jsonb('capability_flags').$type<Record<string, unknown> | null>(),
    /** pending | synced | failed */
    syncStatus: text('sync_status').notNull().default('pending'),
    lastSyncedAt: optionalTime('last_synced_at'),
    syncError: text('sync_error'),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('mcp_integrations_org_slug_unique').on(table.organisationId, table.slug)],
);

export const mcpIntegrationWorkspaces = pgTable(
  'mcp_integration_workspaces',
  {
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => mcpIntegrations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.integrationId, table.workspaceId] })],
);

/** A tool, prompt, resource or resource template the upstream listed at the last sync, enabled or not. */
export const mcpCapabilities = pgTable(
  'mcp_capabilities',
  {
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => mcpIntegrations.id, { onDelete: 'cascade' }),
    /** tool | prompt | resource | resource_template */
    type: text('type').notNull(),
    /** a tool's or prompt's name, a resource's URI, a template's URI template */
    name: text('name').notNull(),
    title: text('title'),
    description: text('description'),
    /** the rest of the upstream's description: input_schema, annotations, arguments, mime_type ... */
    definition: jsonb('definition').$type<Record<string, unknown>>().notNull().default({}),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.integrationId, table.type, table.name] })],
);

export const mcpServers = pgTable(
  'mcp_servers',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    integrationId: uuid('mcp_integration_id')
      .notNull()
      .references(() => mcpIntegrations.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status').notNull().default('active'),
    /** allow | deny: for users without an entry of their own */
    defaultUserAccess: text('default_user_access').notNull().default('allow'),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('mcp_servers_org_slug_unique').on(table.organisationId, table.slug)],
);

/** A server's own switch on one of its integration's capabilities (absent: enabled). */
export const mcpServerCapabilities = pgTable(
  'mcp_server_capabilities',
  {
    serverId: uuid('server_id')
      .notNull()
      .references(() => mcpServers.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.serverId, table.type, table.name] })],
);

export const mcpServerUserAccess = pgTable(
  'mcp_server_user_access',
  {
    serverId: uuid('server_id')
      .notNull()
      .references(() => mcpServers.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.serverId, table.userId] })],
);
