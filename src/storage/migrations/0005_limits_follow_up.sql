DROP INDEX "integrations_org_slug_unique";--> statement-breakpoint
DROP INDEX "providers_workspace_slug_unique";--> statement-breakpoint
ALTER TABLE "rate_limit_policies" ADD COLUMN "on_store_failure" text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "saved_cost" numeric(24, 12);--> statement-breakpoint
ALTER TABLE "usage_limit_policies" ADD COLUMN "on_store_failure" text DEFAULT 'closed' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "integrations_org_slug_active_unique" ON "integrations" USING btree ("organisation_id","slug") WHERE "integrations"."status" = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "providers_workspace_slug_active_unique" ON "providers" USING btree ("workspace_id","slug") WHERE "providers"."status" = 'active';