-- pg_trgm backs the trigram index that serves substring search terms.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"display_prefix" text NOT NULL,
	"name" text,
	"plan_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	"revoked_reason" text,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "listings" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "listings_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"domain_name" text NOT NULL,
	"tld" text NOT NULL,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"length" smallint NOT NULL,
	"has_hyphens" boolean NOT NULL,
	"has_numbers" boolean NOT NULL,
	"word_count" smallint NOT NULL,
	"index_score" smallint NOT NULL,
	"current_bid" numeric(14, 2),
	"start_price" numeric(14, 2),
	"buy_now_price" numeric(14, 2),
	"bid_count" integer,
	"auction_end_time" timestamp (3) with time zone,
	"auction_type" text,
	"marketplace_url" text,
	"extensions_taken" integer,
	"domain_age" smallint,
	"valuation" numeric(14, 2),
	"spam_risk" real,
	"seoa_dr" real,
	"seoa_backlinks" bigint,
	"seob_tf" real,
	"seob_cf" real,
	"seob_backlinks" bigint,
	"seoc_authority" real,
	"seoc_backlinks" bigint,
	"keyword_search_volume" integer,
	"open_rank" real,
	"rankinga_ranking" integer,
	"rankingb_ranking" integer,
	"last_sold_price" numeric(14, 2),
	"last_sold_year" smallint,
	"last_checked_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"max_backlinks" bigint GENERATED ALWAYS AS (greatest(seoa_backlinks, seob_backlinks, seoc_backlinks)) STORED,
	"content_hash" text NOT NULL,
	CONSTRAINT "listings_status_check" CHECK ("listings"."status" in ('auction', 'dropping', 'available'))
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"id" text PRIMARY KEY NOT NULL,
	"requests_per_window" integer NOT NULL,
	"window_seconds" integer NOT NULL,
	"description" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_plan_id_idx" ON "api_keys" USING btree ("plan_id");--> statement-breakpoint
CREATE UNIQUE INDEX "listings_source_domain_name_key" ON "listings" USING btree ("source","domain_name");--> statement-breakpoint
CREATE INDEX "listings_domain_name_idx" ON "listings" USING btree ("domain_name");--> statement-breakpoint
CREATE INDEX "listings_domain_name_trgm_idx" ON "listings" USING gin ("domain_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "listings_auction_end_time_idx" ON "listings" USING btree ("auction_end_time");