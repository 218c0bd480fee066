CREATE TABLE "audit_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"timestamp" timestamp with time zone DEFAULT now() NOT NULL,
	"user_type" text NOT NULL,
	"user_id" uuid,
	"api_key_id" uuid,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text,
	"method" text NOT NULL,
	"uri" text NOT NULL,
	"request_id" text NOT NULL,
	"request_body" text,
	"query_params" text,
	"request_headers" text,
	"client_ip" text,
	"response_status_code" integer NOT NULL,
	"outcome" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_invites" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"workspaces" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"workspace_api_key_details" jsonb,
	"token_hash" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"invited_by" text,
	"accepted_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "previous_key_hash" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "previous_key_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "alert_emails" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rotation_policy" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "creation_mode" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "usage_limits" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "rate_limits" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "user_invites" ADD CONSTRAINT "user_invites_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_logs_org_time_idx" ON "audit_logs" USING btree ("organisation_id","timestamp");--> statement-breakpoint
CREATE INDEX "audit_logs_action_idx" ON "audit_logs" USING btree ("action");--> statement-breakpoint
CREATE UNIQUE INDEX "user_invites_token_unique" ON "user_invites" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "user_invites_org_email_idx" ON "user_invites" USING btree ("organisation_id","email");--> statement-breakpoint
CREATE INDEX "api_keys_previous_hash_idx" ON "api_keys" USING btree ("previous_key_hash");