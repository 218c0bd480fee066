CREATE TABLE "integration_models" (
	"integration_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"is_custom" boolean,
	"is_finetune" boolean,
	"base_model_slug" text,
	"configurations" jsonb,
	"pricing_config" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "integration_models_integration_id_slug_pk" PRIMARY KEY("integration_id","slug")
);
--> statement-breakpoint
CREATE TABLE "integration_workspaces" (
	"integration_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"usage_limits" jsonb,
	"rate_limits" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "integration_workspaces_integration_id_workspace_id_pk" PRIMARY KEY("integration_id","workspace_id")
);
--> statement-breakpoint
CREATE TABLE "integrations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"ai_provider_id" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"sealed_key" text,
	"masked_key" text,
	"configurations" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_mappings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"pricing_adjustments" jsonb,
	"allow_all_models" boolean DEFAULT true NOT NULL,
	"global_workspace_access" jsonb,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "model_prices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"pricing" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"integration_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"note" text,
	"status" text DEFAULT 'active' NOT NULL,
	"usage_limits" jsonb,
	"rate_limits" jsonb,
	"expires_at" timestamp with time zone,
	"model_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_mappings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_virtual_key" boolean DEFAULT false NOT NULL,
	"usage_reset_at" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"name" text,
	"conditions" jsonb NOT NULL,
	"group_by" jsonb NOT NULL,
	"type" text NOT NULL,
	"unit" text NOT NULL,
	"value" double precision NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "secret_references" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"manager_type" text NOT NULL,
	"sealed_auth_config" text,
	"secret_path" text NOT NULL,
	"secret_key" text,
	"allow_all_workspaces" boolean DEFAULT true NOT NULL,
	"allowed_workspaces" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tags" jsonb,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_limit_entities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"policy_id" uuid NOT NULL,
	"value_key" text NOT NULL,
	"current_usage" numeric(24, 12) DEFAULT '0' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"period_start" timestamp with time zone,
	"threshold_alerted_at" timestamp with time zone,
	"exhausted_alerted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_limit_policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"name" text,
	"conditions" jsonb NOT NULL,
	"group_by" jsonb NOT NULL,
	"type" text NOT NULL,
	"credit_limit" numeric(24, 12) NOT NULL,
	"alert_threshold" numeric(24, 12),
	"periodic_reset" text,
	"periodic_reset_days" integer,
	"next_usage_reset_at" timestamp with time zone,
	"last_reset_at" timestamp with time zone,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cached_tokens" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_write_tokens" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "reasoning_tokens" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cost" numeric(24, 12);--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "provider_slug" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "integration_id" uuid;--> statement-breakpoint
ALTER TABLE "integration_models" ADD CONSTRAINT "integration_models_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_workspaces" ADD CONSTRAINT "integration_workspaces_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_workspaces" ADD CONSTRAINT "integration_workspaces_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "providers" ADD CONSTRAINT "providers_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rate_limit_policies" ADD CONSTRAINT "rate_limit_policies_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rate_limit_policies" ADD CONSTRAINT "rate_limit_policies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secret_references" ADD CONSTRAINT "secret_references_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_limit_entities" ADD CONSTRAINT "usage_limit_entities_policy_id_usage_limit_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."usage_limit_policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_limit_policies" ADD CONSTRAINT "usage_limit_policies_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_limit_policies" ADD CONSTRAINT "usage_limit_policies_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "integrations_org_slug_unique" ON "integrations" USING btree ("organisation_id","slug");--> statement-breakpoint
CREATE INDEX "model_prices_lookup_idx" ON "model_prices" USING btree ("organisation_id","provider","model");--> statement-breakpoint
CREATE UNIQUE INDEX "providers_workspace_slug_unique" ON "providers" USING btree ("workspace_id","slug");--> statement-breakpoint
CREATE INDEX "rate_limit_policies_org_idx" ON "rate_limit_policies" USING btree ("organisation_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "secret_references_org_slug_unique" ON "secret_references" USING btree ("organisation_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "usage_limit_entities_policy_value_unique" ON "usage_limit_entities" USING btree ("policy_id","value_key");--> statement-breakpoint
CREATE INDEX "usage_limit_policies_org_idx" ON "usage_limit_policies" USING btree ("organisation_id","status");