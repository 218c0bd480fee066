/**
 * SCIM group mappings (api-surface §3.8): an identity provider's group, the workspaces (and roles) it maps to, and
 * which workspace memberships those mappings granted, so that a mapping removed revokes only what it gave.
 */
import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';
import { organisations, users, workspaces } from './control-plane.ts';

/** A group of the organisation's identity provider, known by its display name and (once provisioned) its id there. */
export const scimGroups = pgTable(
  'scim_groups',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    displayName: text('display_name').notNull(),
    /** the identity provider's id of the group (SCIM `externalId`); null while only pre-created by name */
    externalId: text('external_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('scim_groups_org_display_name_unique').on(table.organisationId, table.displayName),
    uniqueIndex('scim_groups_org_external_id_unique').on(table.organisationId, table.externalId),
  ],
);

/** Members of `scimGroupId` get `role` in `workspaceId`. DELETE archives: the row stays for the record. */
export const scimWorkspaceGroups = pgTable(
  'scim_workspace_groups',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    organisationId: uuid('organisation_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    scimGroupId: uuid('scim_group_id')
      .notNull()
      .references(() => scimGroups.id, { onDelete: 'cascade' }),
    /** workspace role: admin | manager | member */
    role: text('role').notNull(),
    /** active | archived */
    status: text('status').notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('scim_workspace_groups_workspace_group_active_unique')
      .on(table.workspaceId, table.scimGroupId)
      .where(sql`${table.status} = 'active'`),
    index('scim_workspace_groups_org_idx').on(table.organisationId, table.status),
  ],
);

/**
 * A workspace membership granted through a mapping: one row per (mapping, user). A membership with at least one
 * row here is SCIM's (sign-in sets its role; the last grant gone removes it); one without is an admin's, untouched.
 */
export const scimMembershipGrants = pgTable(
  'scim_membership_grants',
  {
    scimWorkspaceGroupId: uuid('scim_workspace_group_id')
      .notNull()
      .references(() => scimWorkspaceGroups.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.scimWorkspaceGroupId, table.userId] }),
    index('scim_membership_grants_user_workspace_idx').on(table.userId, table.workspaceId),
  ],
);
