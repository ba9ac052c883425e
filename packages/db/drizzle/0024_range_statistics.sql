-- Statistics for the ranges searches filter on, so that planned totals count the right rows.
--
-- status with current_bid: a planned total with a price range counted the prices of every
-- status, not of the status searched. Measured at 5 million listings: auctions bid less than
-- fixed-price listings ask, and dropping names have no price in a common range, so
-- P(auction) x P(price in range) over-estimated `source + price range` by 40 %. A list of the
-- most common (status, current_bid) pairs carries the two together; at 1000 pairs it held 97 %
-- of the rows and the estimate came within 1 % (bench/notes/100). Ranges are read off such a
-- list item by item; the dependencies and distinct counts of extended statistics only describe
-- equalities, so only the list is built.
CREATE STATISTICS "listings_status_bid_stx" (mcv) ON "status", "current_bid" FROM "listings";
--> statement-breakpoint
ALTER STATISTICS "listings_status_bid_stx" SET STATISTICS 1000;
--> statement-breakpoint
-- The end time or infinity (migration 0022), which `ending_within` now also compares: a window
-- of hours is a small part of a histogram spanning weeks, read off by interpolation inside one
-- bucket of 100. With 1000 buckets a 1-hour window of every status planned -3 % (+20 % before).
-- ANALYZE samples 300 rows per unit of target already, for the list above: no extra rows.
ALTER STATISTICS "listings_not_ended_stx" SET STATISTICS 1000;
--> statement-breakpoint
-- Statistics are made by ANALYZE: without this, an upgraded database would go on with the
-- estimates above until the worker's next large batch.
ANALYZE "listings" ("status", "current_bid", "auction_end_time");
