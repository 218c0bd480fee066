CREATE TABLE "analytics_users_daily" (
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"day" timestamp with time zone NOT NULL,
	"user_key" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"cost" numeric(30, 12) DEFAULT '0' NOT NULL,
	CONSTRAINT "analytics_users_daily_key" UNIQUE NULLS NOT DISTINCT("organisation_id","workspace_id","day","user_key")
);
--> statement-breakpoint
-- the daily users rollup starts from the hourly one (later batches add themselves: src/storage/repositories/request-logs.ts)
insert into analytics_users_daily (organisation_id, workspace_id, day, user_key, requests, cost) select organisation_id, workspace_id, date_trunc('day', hour, 'UTC') as day, user_key, sum(requests)::bigint as requests, sum(cost) as cost from analytics_users_hourly group by organisation_id, workspace_id, date_trunc('day', hour, 'UTC'), user_key;
