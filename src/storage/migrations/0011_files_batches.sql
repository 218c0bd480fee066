CREATE TABLE "provider_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"api_key_id" uuid,
	"user_id" text,
	"provider" text NOT NULL,
	"provider_slug" text,
	"integration_id" uuid,
	"provider_object_id" text NOT NULL,
	"status" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"endpoint" text,
	"input_file_id" text,
	"output_file_id" text,
	"usage_recorded_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "provider_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"api_key_id" uuid,
	"user_id" text,
	"provider" text NOT NULL,
	"provider_slug" text,
	"integration_id" uuid,
	"provider_object_id" text NOT NULL,
	"status" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"filename" text,
	"purpose" text,
	"bytes" bigint,
	"uploaded_bytes" bigint,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "provider_fine_tuning_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"api_key_id" uuid,
	"user_id" text,
	"provider" text NOT NULL,
	"provider_slug" text,
	"integration_id" uuid,
	"provider_object_id" text NOT NULL,
	"status" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"model" text,
	"training_file" text,
	"fine_tuned_model" text
);
--> statement-breakpoint
ALTER TABLE "provider_batches" ADD CONSTRAINT "provider_batches_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_batches" ADD CONSTRAINT "provider_batches_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_files" ADD CONSTRAINT "provider_files_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_files" ADD CONSTRAINT "provider_files_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_fine_tuning_jobs" ADD CONSTRAINT "provider_fine_tuning_jobs_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_fine_tuning_jobs" ADD CONSTRAINT "provider_fine_tuning_jobs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "provider_batches_ws_object_unique" ON "provider_batches" USING btree ("workspace_id","provider","provider_object_id");--> statement-breakpoint
CREATE INDEX "provider_batches_org_time_idx" ON "provider_batches" USING btree ("organisation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "provider_files_ws_object_unique" ON "provider_files" USING btree ("workspace_id","provider","provider_object_id");--> statement-breakpoint
CREATE INDEX "provider_files_org_time_idx" ON "provider_files" USING btree ("organisation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "provider_fine_tuning_jobs_ws_object_unique" ON "provider_fine_tuning_jobs" USING btree ("workspace_id","provider","provider_object_id");--> statement-breakpoint
CREATE INDEX "provider_fine_tuning_jobs_org_time_idx" ON "provider_fine_tuning_jobs" USING btree ("organisation_id","created_at");