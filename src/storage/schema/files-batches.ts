/**
 * What the gateway remembers of the provider-side objects its callers create: files, batches and fine-tuning jobs.
 * The provider keeps the object; the gateway keeps who created it (workspace, key), where (provider, saved provider
 * and its integration), and enough of it (purpose, size, status) to scope lists and reads to the caller's
 * workspace and to show them to admins. A provider id is unique per workspace and provider.
 */
import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, optionalTime, updatedAt } from './columns.ts';
import { organisations, workspaces } from './control-plane.ts';

/** Who created an object, and at which provider: the columns every record shares. */
const ownership = () => ({
  id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
  organisationId: uuid('organisation_id')
    .notNull()
    .references(() => organisations.id, { onDelete: 'cascade' }),
  workspaceId: uuid('workspace_id')
    .notNull()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  /** the API key that created it; null for a JWT caller. No foreign key: the record outlives a deleted key */
  apiKeyId: uuid('api_key_id'),
  userId: text('user_id'),
  /** the adapter's name (openai, azure-openai ...) */
  provider: text('provider').notNull(),
  /** the saved provider (`@slug`, virtual key) it went through, and its integration; null for direct credentials */
  providerSlug: text('provider_slug'),
  integrationId: uuid('integration_id'),
  /** the provider's own id (file-..., batch_..., ftjob-...): the id clients use */
  providerObjectId: text('provider_object_id').notNull(),
  status: text('status'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const providerFiles = pgTable(
  'provider_files',
  {
    ...ownership(),
    filename: text('filename'),
    purpose: text('purpose'),
    /** the file's size as the provider reports it */
    bytes: bigint('bytes', { mode: 'number' }),
    /** the multipart request's bytes the gateway streamed to the provider (counted on the way, never buffered) */
    uploadedBytes: bigint('uploaded_bytes', { mode: 'number' }),
    /** where the file is kept when the provider's API does not keep it by id: a Bedrock batch input's s3:// URI */
    location: text('location'),
    deletedAt: optionalTime('deleted_at'),
  },
  (table) => [
    uniqueIndex('provider_files_ws_object_unique').on(table.workspaceId, table.provider, table.providerObjectId),
    index('provider_files_org_time_idx').on(table.organisationId, table.createdAt),
  ],
);

export const providerBatches = pgTable(
  'provider_batches',
  {
    ...ownership(),
    endpoint: text('endpoint'),
    inputFileId: text('input_file_id'),
    outputFileId: text('output_file_id'),
    /** set once, when the batch's output usage has been written to the request log: never counted twice */
    usageRecordedAt: optionalTime('usage_recorded_at'),
  },
  (table) => [
    uniqueIndex('provider_batches_ws_object_unique').on(table.workspaceId, table.provider, table.providerObjectId),
    index('provider_batches_org_time_idx').on(table.organisationId, table.createdAt),
  ],
);

export const providerFineTuningJobs = pgTable(
  'provider_fine_tuning_jobs',
  {
    ...ownership(),
    model: text('model'),
    trainingFile: text('training_file'),
    fineTunedModel: text('fine_tuned_model'),
  },
  (table) => [
    uniqueIndex('provider_fine_tuning_jobs_ws_object_unique').on(table.workspaceId, table.provider, table.providerObjectId),
    index('provider_fine_tuning_jobs_org_time_idx').on(table.organisationId, table.createdAt),
  ],
);
