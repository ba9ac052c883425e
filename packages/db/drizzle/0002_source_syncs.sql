CREATE TABLE "source_syncs" (
	"source" text PRIMARY KEY NOT NULL,
	"last_started_at" timestamp (3) with time zone,
	"last_finished_at" timestamp (3) with time zone,
	"last_outcome" text,
	"last_summary" jsonb,
	"consecutive_failures" integer DEFAULT 0 NOT NULL
);
