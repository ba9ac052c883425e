CREATE TABLE "listing_events" (
	"id" bigint NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"type" text NOT NULL,
	"source" text NOT NULL,
	"previous" jsonb,
	"loaded" integer,
	"domain_name" text,
	"tld" text,
	"status" text,
	"length" smallint,
	"has_hyphens" boolean,
	"has_numbers" boolean,
	"word_count" smallint,
	"index_score" smallint,
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
	"last_checked_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone,
	"max_backlinks" bigint GENERATED ALWAYS AS (greatest(seoa_backlinks, seob_backlinks, seoc_backlinks)) STORED
) PARTITION BY RANGE ("occurred_at");
--> statement-breakpoint
-- Partitioned by day of occurred_at (hand-written: drizzle-kit cannot declare it). Retention drops a
-- day's partition (events/retention.ts); the writers create each day's partition before they need it.
-- Ids come from this sequence, taken under the event log's lock so that they follow commit order.
CREATE SEQUENCE "listing_events_id_seq" AS bigint;
--> statement-breakpoint
CREATE TABLE "event_log" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"ending_soon_through" timestamp (3) with time zone,
	"ended_through" timestamp (3) with time zone,
	"dropped_through_id" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "listing_events_id_idx" ON "listing_events" USING btree ("id");
--> statement-breakpoint
INSERT INTO "event_log" ("singleton") VALUES (true);