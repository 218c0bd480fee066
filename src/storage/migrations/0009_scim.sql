CREATE TABLE "scim_groups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"display_name" text NOT NULL,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scim_membership_grants" (
	"scim_workspace_group_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scim_membership_grants_scim_workspace_group_id_user_id_pk" PRIMARY KEY("scim_workspace_group_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "scim_workspace_groups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"scim_group_id" uuid NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_membership_grants" ADD CONSTRAINT "scim_membership_grants_scim_workspace_group_id_scim_workspace_groups_id_fk" FOREIGN KEY ("scim_workspace_group_id") REFERENCES "public"."scim_workspace_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_membership_grants" ADD CONSTRAINT "scim_membership_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_membership_grants" ADD CONSTRAINT "scim_membership_grants_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_workspace_groups" ADD CONSTRAINT "scim_workspace_groups_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_workspace_groups" ADD CONSTRAINT "scim_workspace_groups_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_workspace_groups" ADD CONSTRAINT "scim_workspace_groups_scim_group_id_scim_groups_id_fk" FOREIGN KEY ("scim_group_id") REFERENCES "public"."scim_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "scim_groups_org_display_name_unique" ON "scim_groups" USING btree ("organisation_id","display_name");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_groups_org_external_id_unique" ON "scim_groups" USING btree ("organisation_id","external_id");--> statement-breakpoint
CREATE INDEX "scim_membership_grants_user_workspace_idx" ON "scim_membership_grants" USING btree ("user_id","workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "scim_workspace_groups_workspace_group_active_unique" ON "scim_workspace_groups" USING btree ("workspace_id","scim_group_id") WHERE "scim_workspace_groups"."status" = 'active';--> statement-breakpoint
CREATE INDEX "scim_workspace_groups_org_idx" ON "scim_workspace_groups" USING btree ("organisation_id","status");