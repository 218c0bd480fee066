CREATE TABLE "analytics_hourly" (
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"hour" timestamp with time zone NOT NULL,
	"provider" text,
	"model" text,
	"api_key_id" uuid,
	"status" integer NOT NULL,
	"cache_status" text,
	"retry_count" integer NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"fallback_rescues" bigint DEFAULT 0 NOT NULL,
	"cost" numeric(30, 12) DEFAULT '0' NOT NULL,
	"saved_cost" numeric(30, 12) DEFAULT '0' NOT NULL,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"total_tokens" bigint DEFAULT 0 NOT NULL,
	"response_time_ms_sum" bigint DEFAULT 0 NOT NULL,
	"latency_histogram" integer[] NOT NULL,
	CONSTRAINT "analytics_hourly_key" UNIQUE NULLS NOT DISTINCT("organisation_id","workspace_id","hour","provider","model","api_key_id","status","cache_status","retry_count")
);
--> statement-breakpoint
CREATE TABLE "analytics_users_hourly" (
	"organisation_id" uuid NOT NULL,
	"workspace_id" uuid,
	"hour" timestamp with time zone NOT NULL,
	"user_key" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"cost" numeric(30, 12) DEFAULT '0' NOT NULL,
	CONSTRAINT "analytics_users_hourly_key" UNIQUE NULLS NOT DISTINCT("organisation_id","workspace_id","hour","user_key")
);

--> statement-breakpoint
-- the rollups start from the rows already logged (later batches add themselves: src/storage/repositories/request-logs.ts)
insert into analytics_hourly (organisation_id, workspace_id, hour, provider, model, api_key_id, status, cache_status, retry_count, requests, errors, fallback_rescues, cost, saved_cost, prompt_tokens, completion_tokens, total_tokens, response_time_ms_sum, latency_histogram) select organisation_id, workspace_id, date_trunc('hour', created_at, 'UTC') as hour, provider, model, api_key_id, status, cache_status, retry_count, count(*)::bigint as requests, count(*) filter (where not is_success)::bigint as errors, count(*) filter (where rescued)::bigint as fallback_rescues, coalesce(sum(cost), 0) as cost, coalesce(sum(saved_cost), 0) as saved_cost, coalesce(sum(prompt_tokens), 0)::bigint as prompt_tokens, coalesce(sum(completion_tokens), 0)::bigint as completion_tokens, coalesce(sum(total_tokens), 0)::bigint as total_tokens, coalesce(sum(response_time_ms), 0)::bigint as response_time_ms_sum, array[count(*) filter (where latency_bucket = 1), count(*) filter (where latency_bucket = 2), count(*) filter (where latency_bucket = 3), count(*) filter (where latency_bucket = 4), count(*) filter (where latency_bucket = 5), count(*) filter (where latency_bucket = 6), count(*) filter (where latency_bucket = 7), count(*) filter (where latency_bucket = 8), count(*) filter (where latency_bucket = 9), count(*) filter (where latency_bucket = 10), count(*) filter (where latency_bucket = 11), count(*) filter (where latency_bucket = 12), count(*) filter (where latency_bucket = 13), count(*) filter (where latency_bucket = 14), count(*) filter (where latency_bucket = 15), count(*) filter (where latency_bucket = 16), count(*) filter (where latency_bucket = 17), count(*) filter (where latency_bucket = 18), count(*) filter (where latency_bucket = 19), count(*) filter (where latency_bucket = 20), count(*) filter (where latency_bucket = 21), count(*) filter (where latency_bucket = 22), count(*) filter (where latency_bucket = 23), count(*) filter (where latency_bucket = 24), count(*) filter (where latency_bucket = 25), count(*) filter (where latency_bucket = 26), count(*) filter (where latency_bucket = 27), count(*) filter (where latency_bucket = 28), count(*) filter (where latency_bucket = 29), count(*) filter (where latency_bucket = 30), count(*) filter (where latency_bucket = 31), count(*) filter (where latency_bucket = 32), count(*) filter (where latency_bucket = 33), count(*) filter (where latency_bucket = 34), count(*) filter (where latency_bucket = 35), count(*) filter (where latency_bucket = 36), count(*) filter (where latency_bucket = 37), count(*) filter (where latency_bucket = 38), count(*) filter (where latency_bucket = 39), count(*) filter (where latency_bucket = 40), count(*) filter (where latency_bucket = 41), count(*) filter (where latency_bucket = 42), count(*) filter (where latency_bucket = 43), count(*) filter (where latency_bucket = 44), count(*) filter (where latency_bucket = 45), count(*) filter (where latency_bucket = 46), count(*) filter (where latency_bucket = 47), count(*) filter (where latency_bucket = 48), count(*) filter (where latency_bucket = 49), count(*) filter (where latency_bucket = 50), count(*) filter (where latency_bucket = 51), count(*) filter (where latency_bucket = 52), count(*) filter (where latency_bucket = 53), count(*) filter (where latency_bucket = 54), count(*) filter (where latency_bucket = 55), count(*) filter (where latency_bucket = 56), count(*) filter (where latency_bucket = 57), count(*) filter (where latency_bucket = 58), count(*) filter (where latency_bucket = 59), count(*) filter (where latency_bucket = 60), count(*) filter (where latency_bucket = 61), count(*) filter (where latency_bucket = 62), count(*) filter (where latency_bucket = 63), count(*) filter (where latency_bucket = 64), count(*) filter (where latency_bucket = 65), count(*) filter (where latency_bucket = 66), count(*) filter (where latency_bucket = 67), count(*) filter (where latency_bucket = 68), count(*) filter (where latency_bucket = 69), count(*) filter (where latency_bucket = 70)]::int[] as latency_histogram from ( select s.*, width_bucket(s.response_time_ms, array[0,1,2,3,4,5,6,7,8,10,12,14,17,20,24,29,35,42,50,60,72,86,103,124,149,179,215,258,310,372,446,535,642,770,924,1109,1331,1597,1916,2299,2759,3311,3973,4768,5722,6866,8239,9887,11864,14237,17084,20501,24601,29521,35425,42510,51012,61214,73457,88148,105778,126934,152321,182785,219342,263210,315852,379022,454826,545791]::int[]) as latency_bucket, (s.is_success and exists (select 1 from jsonb_array_elements(s.attempts) as attempt where attempt->>'path' is distinct from s.last_used_option_index)) as rescued from (select * from request_logs) as s ) as rows group by organisation_id, workspace_id, date_trunc('hour', created_at, 'UTC'), provider, model, api_key_id, status, cache_status, retry_count;
--> statement-breakpoint
insert into analytics_users_hourly (organisation_id, workspace_id, hour, user_key, requests, cost) select organisation_id, workspace_id, date_trunc('hour', created_at, 'UTC') as hour, user_key, count(*)::bigint as requests, coalesce(sum(cost), 0) as cost from (select s.*, coalesce(nullif(metadata->>'_user', ''), user_id::text) as user_key from (select * from request_logs) as s) as rows where user_key is not null group by organisation_id, workspace_id, date_trunc('hour', created_at, 'UTC'), user_key;
