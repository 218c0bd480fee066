-- The request log's two time indexes end with the id, the lists' and exports' tie-breaker: a page after a cursor is read
-- in index order and stops at its limit. Without it the planner, expecting few rows (just-written rows not yet
-- analysed, or a metadata filter), sorted every row older than the cursor for each page: an export of 100k rows took
-- 0.2-0.3 s a page (docs/performance.md, eleventh session). Rebuilding them reads the whole log once, under a lock
-- that holds the log's writes (they wait in the gateway's buffer) while the migration runs.
DROP INDEX "request_logs_org_time_idx";--> statement-breakpoint
DROP INDEX "request_logs_org_ws_time_idx";--> statement-breakpoint
CREATE INDEX "request_logs_org_time_idx" ON "request_logs" USING btree ("organisation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_org_ws_time_idx" ON "request_logs" USING btree ("organisation_id","workspace_id","created_at","id");