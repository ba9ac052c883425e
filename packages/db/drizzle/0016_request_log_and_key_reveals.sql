-- request_log is partitioned by day on "at" (by hand: Drizzle does not describe partitions).
-- The API makes each day's partition before it writes to it and drops those past 7 days.
CREATE TABLE "request_log" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "request_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp (3) with time zone NOT NULL,
	"key_id" text NOT NULL,
	"request_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" smallint NOT NULL,
	"error_code" text,
	"duration_ms" real NOT NULL,
	"rows_returned" integer DEFAULT 0 NOT NULL
) PARTITION BY RANGE ("at");
--> statement-breakpoint
CREATE TABLE "key_reveals" (
	"form_token_hash" text PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text NOT NULL,
	"kind" text NOT NULL,
	"sealed" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"shown_at" timestamp (3) with time zone,
	CONSTRAINT "key_reveals_id_unique" UNIQUE("id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "replaced_by" text;--> statement-breakpoint
ALTER TABLE "key_usage" ADD COLUMN "ok" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "key_usage" ADD COLUMN "client_errors" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "key_usage" ADD COLUMN "rate_limited" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "key_usage" ADD COLUMN "server_errors" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "key_reveals" ADD CONSTRAINT "key_reveals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_log_key_at_idx" ON "request_log" USING btree ("key_id","at");--> statement-breakpoint
CREATE INDEX "key_reveals_account_id_idx" ON "key_reveals" USING btree ("account_id");