CREATE TABLE "feedback" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"trace_id" text NOT NULL,
	"value" integer NOT NULL,
	"weight" double precision DEFAULT 1 NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"api_key_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "log_export_chunks" (
	"export_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"rows" integer NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "log_export_chunks_export_id_seq_pk" PRIMARY KEY("export_id","seq")
);
--> statement-breakpoint
CREATE TABLE "log_exports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"filters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requested_data" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"exported_rows" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "log_export_chunks" ADD CONSTRAINT "log_export_chunks_export_id_log_exports_id_fk" FOREIGN KEY ("export_id") REFERENCES "public"."log_exports"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "feedback_org_trace_idx" ON "feedback" USING btree ("organisation_id","trace_id");
--> statement-breakpoint
CREATE INDEX "feedback_org_time_idx" ON "feedback" USING btree ("organisation_id","created_at");
--> statement-breakpoint
CREATE INDEX "log_exports_org_idx" ON "log_exports" USING btree ("organisation_id","created_at");
--> statement-breakpoint
-- request_logs becomes a table partitioned by day on created_at (declarative partitioning, which drizzle-kit does not
-- know: the snapshot describes the columns and the primary key, this file the partitioning). Logged rows move over.
ALTER TABLE "request_logs" RENAME TO "request_logs_legacy";
--> statement-breakpoint
ALTER TABLE "request_logs_legacy" RENAME CONSTRAINT "request_logs_pkey" TO "request_logs_legacy_pkey";
--> statement-breakpoint
ALTER INDEX "request_logs_org_time_idx" RENAME TO "request_logs_legacy_org_time_idx";
--> statement-breakpoint
ALTER INDEX "request_logs_trace_idx" RENAME TO "request_logs_legacy_trace_idx";
--> statement-breakpoint
CREATE TABLE "request_logs" (
	"id" uuid NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"api_key_id" uuid,
	"user_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"trace_id" text NOT NULL,
	"span_id" text,
	"parent_span_id" text,
	"span_name" text,
	"route" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"provider" text,
	"model" text,
	"status" integer NOT NULL,
	"is_success" boolean NOT NULL,
	"stream_mode" boolean DEFAULT false NOT NULL,
	"response_time_ms" integer NOT NULL,
	"cache_status" text,
	"retry_count" integer DEFAULT 0 NOT NULL,
	"last_used_option_index" text,
	"config_id" uuid,
	"config_version_id" uuid,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"total_tokens" integer,
	"cached_tokens" integer,
	"cache_write_tokens" integer,
	"reasoning_tokens" integer,
	"cost" numeric(24, 12),
	"saved_cost" numeric(24, 12),
	"provider_slug" text,
	"integration_id" uuid,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"hook_results" jsonb,
	"error" jsonb,
	"upstream_time_ms" integer,
	"first_byte_ms" integer,
	"queue_time_ms" integer,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mode" text,
	"request_body" text,
	"response_body" text,
	"bodies_truncated" boolean DEFAULT false NOT NULL,
	"request_headers" jsonb,
	"gateway_headers" jsonb,
	"response_headers" jsonb,
	"is_custom" boolean DEFAULT false NOT NULL,
	"request_url" text,
	"prompt_id" uuid,
	"prompt_slug" text,
	"prompt_version_id" uuid,
	CONSTRAINT "request_logs_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
-- rows of a day without a partition of its own land here; the maintenance job never creates a day the default holds rows of
CREATE TABLE "request_logs_default" PARTITION OF "request_logs" DEFAULT;
--> statement-breakpoint
CREATE INDEX "request_logs_org_time_idx" ON "request_logs" USING btree ("organisation_id","created_at");
--> statement-breakpoint
CREATE INDEX "request_logs_org_ws_time_idx" ON "request_logs" USING btree ("organisation_id","workspace_id","created_at");
--> statement-breakpoint
CREATE INDEX "request_logs_trace_idx" ON "request_logs" USING btree ("trace_id");
--> statement-breakpoint
CREATE INDEX "request_logs_id_idx" ON "request_logs" USING btree ("id");
--> statement-breakpoint
-- one UTC day's partition, request_logs_pYYYYMMDD; false when the default partition already holds rows of that day
CREATE OR REPLACE FUNCTION gateway_ensure_log_partition(day date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  low timestamptz := (day::timestamp AT TIME ZONE 'UTC');
  high timestamptz := ((day + 1)::timestamp AT TIME ZONE 'UTC');
  part text := 'request_logs_p' || to_char(day, 'YYYYMMDD');
BEGIN
  -- two nodes maintaining at once: one makes the partition, the other then finds it
  PERFORM pg_advisory_xact_lock(hashtext('gateway_request_log_partitions'));
  IF to_regclass(part) IS NOT NULL THEN RETURN true; END IF;
  IF EXISTS (SELECT 1 FROM request_logs_default WHERE created_at >= low AND created_at < high) THEN RETURN false; END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF request_logs FOR VALUES FROM (%L) TO (%L)', part, low, high);
  RETURN true;
END $$;
--> statement-breakpoint
DO $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
  first_day date;
BEGIN
  SELECT (min(created_at) AT TIME ZONE 'UTC')::date INTO first_day FROM request_logs_legacy;
  first_day := least(coalesce(first_day, today), today);
  FOR d IN 0..(today - first_day + 2) LOOP
    PERFORM gateway_ensure_log_partition(first_day + d);
  END LOOP;
END $$;
--> statement-breakpoint
INSERT INTO "request_logs" ("id", "organisation_id", "workspace_id", "api_key_id", "user_id", "created_at", "trace_id", "span_id", "parent_span_id", "span_name", "route", "method", "path", "provider", "model", "status", "is_success", "stream_mode", "response_time_ms", "cache_status", "retry_count", "last_used_option_index", "config_id", "config_version_id", "prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "cache_write_tokens", "reasoning_tokens", "cost", "saved_cost", "provider_slug", "integration_id", "metadata", "hook_results", "error") SELECT "id", "organisation_id", "workspace_id", "api_key_id", "user_id", "created_at", "trace_id", "span_id", "parent_span_id", "span_name", "route", "method", "path", "provider", "model", "status", "is_success", "stream_mode", "response_time_ms", "cache_status", "retry_count", "last_used_option_index", "config_id", "config_version_id", "prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "cache_write_tokens", "reasoning_tokens", "cost", "saved_cost", "provider_slug", "integration_id", "metadata", "hook_results", "error" FROM "request_logs_legacy";
--> statement-breakpoint
DROP TABLE "request_logs_legacy";
