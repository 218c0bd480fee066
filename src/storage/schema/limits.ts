/** Rate and usage limits policies, usage entities, and custom model prices. */
import { sql } from 'drizzle-orm';
import { doublePrecision, index, integer, jsonb, numeric, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt, optionalTime } from './columns.ts';
import { organisations, workspaces } from './control-plane.ts';

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
