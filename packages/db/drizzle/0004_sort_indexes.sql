-- Byte order for names: they are ASCII, comparisons are cheaper than a linguistic collation,
-- and the order (and so keyset paging) is the same on every PostgreSQL and on PGlite.
ALTER TABLE "listings" ALTER COLUMN "domain_name" TYPE text COLLATE "C";--> statement-breakpoint
DROP INDEX "listings_domain_name_idx";--> statement-breakpoint
CREATE INDEX "listings_domain_name_id_idx" ON "listings" USING btree ("domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_length_asc_idx" ON "listings" USING btree (length,"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_length_desc_idx" ON "listings" USING btree ((- length),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_index_score_asc_idx" ON "listings" USING btree (index_score,"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_index_score_desc_idx" ON "listings" USING btree ((- index_score),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_current_bid_asc_idx" ON "listings" USING btree (coalesce(current_bid::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_current_bid_desc_idx" ON "listings" USING btree (coalesce(- current_bid::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_buy_now_price_asc_idx" ON "listings" USING btree (coalesce(buy_now_price::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_buy_now_price_desc_idx" ON "listings" USING btree (coalesce(- buy_now_price::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_bid_count_asc_idx" ON "listings" USING btree (coalesce(bid_count::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_bid_count_desc_idx" ON "listings" USING btree (coalesce(- bid_count::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_auction_end_time_asc_idx" ON "listings" USING btree (coalesce(extract(epoch from (auction_end_time at time zone 'UTC'))::float8, 'Infinity'::float8),"domain_name","id");--> statement-breakpoint
CREATE INDEX "listings_sort_auction_end_time_desc_idx" ON "listings" USING btree (coalesce(- extract(epoch from (auction_end_time at time zone 'UTC'))::float8, 'Infinity'::float8),"domain_name","id");