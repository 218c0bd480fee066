CREATE TABLE "prompt_collections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"parent_collection_id" uuid,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_labels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"name" text NOT NULL,
	"description" text,
	"color_code" text,
	"is_universal" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_partial_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"partial_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"template" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_partials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"collection_id" uuid,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"default_version" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"prompt_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"template" text NOT NULL,
	"parameters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"model" text,
	"functions" jsonb,
	"tools" jsonb,
	"tool_choice" jsonb,
	"template_metadata" jsonb,
	"is_raw_template" boolean DEFAULT false NOT NULL,
	"description" text,
	"label_id" uuid,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"collection_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"virtual_key" text,
	"default_version" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "prompt_collections" ADD CONSTRAINT "prompt_collections_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_collections" ADD CONSTRAINT "prompt_collections_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_collections" ADD CONSTRAINT "prompt_collections_parent_collection_id_prompt_collections_id_fk" FOREIGN KEY ("parent_collection_id") REFERENCES "public"."prompt_collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_labels" ADD CONSTRAINT "prompt_labels_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_labels" ADD CONSTRAINT "prompt_labels_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_partial_versions" ADD CONSTRAINT "prompt_partial_versions_partial_id_prompt_partials_id_fk" FOREIGN KEY ("partial_id") REFERENCES "public"."prompt_partials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_partials" ADD CONSTRAINT "prompt_partials_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_partials" ADD CONSTRAINT "prompt_partials_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_partials" ADD CONSTRAINT "prompt_partials_collection_id_prompt_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."prompt_collections"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_versions" ADD CONSTRAINT "prompt_versions_prompt_id_prompts_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_versions" ADD CONSTRAINT "prompt_versions_label_id_prompt_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."prompt_labels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompts" ADD CONSTRAINT "prompts_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompts" ADD CONSTRAINT "prompts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompts" ADD CONSTRAINT "prompts_collection_id_prompt_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."prompt_collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_collections_workspace_slug_active_unique" ON "prompt_collections" USING btree ("workspace_id","slug") WHERE "prompt_collections"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_collections_workspace_default_unique" ON "prompt_collections" USING btree ("workspace_id") WHERE "prompt_collections"."is_default" and "prompt_collections"."status" = 'active';--> statement-breakpoint
CREATE INDEX "prompt_collections_parent_idx" ON "prompt_collections" USING btree ("parent_collection_id");--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_labels_org_name_active_unique" ON "prompt_labels" USING btree ("organisation_id","name") WHERE "prompt_labels"."workspace_id" is null and "prompt_labels"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_labels_workspace_name_active_unique" ON "prompt_labels" USING btree ("workspace_id","name") WHERE "prompt_labels"."workspace_id" is not null and "prompt_labels"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_partial_versions_partial_version_unique" ON "prompt_partial_versions" USING btree ("partial_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_partials_workspace_slug_active_unique" ON "prompt_partials" USING btree ("workspace_id","slug") WHERE "prompt_partials"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_versions_prompt_version_unique" ON "prompt_versions" USING btree ("prompt_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_versions_prompt_label_unique" ON "prompt_versions" USING btree ("prompt_id","label_id") WHERE "prompt_versions"."label_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "prompts_workspace_slug_active_unique" ON "prompts" USING btree ("workspace_id","slug") WHERE "prompts"."status" = 'active';--> statement-breakpoint
CREATE INDEX "prompts_collection_idx" ON "prompts" USING btree ("collection_id");