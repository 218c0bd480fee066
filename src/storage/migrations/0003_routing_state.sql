CREATE TABLE "config_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"config_id" uuid NOT NULL,
	"config" jsonb NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "configs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"current_version_id" uuid,
	"owner_id" text NOT NULL,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "request_logs" (
	"id" uuid PRIMARY KEY NOT NULL,
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
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"hook_results" jsonb,
	"error" jsonb
);
--> statement-breakpoint
ALTER TABLE "config_versions" ADD CONSTRAINT "config_versions_config_id_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."configs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "configs" ADD CONSTRAINT "configs_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "configs" ADD CONSTRAINT "configs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "config_versions_config_idx" ON "config_versions" USING btree ("config_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "configs_org_slug_active_unique" ON "configs" USING btree ("organisation_id","slug") WHERE "configs"."status" = 'active';--> statement-breakpoint
CREATE INDEX "configs_org_workspace_idx" ON "configs" USING btree ("organisation_id","workspace_id");--> statement-breakpoint
CREATE INDEX "request_logs_org_time_idx" ON "request_logs" USING btree ("organisation_id","created_at");--> statement-breakpoint
CREATE INDEX "request_logs_trace_idx" ON "request_logs" USING btree ("trace_id");