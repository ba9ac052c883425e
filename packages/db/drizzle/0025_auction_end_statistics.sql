-- Statistics of the auctions' own end times, for the planned total of `ending_within`.
--
-- A window of hours ahead counts auctions only (a search without a status, or status=auction).
-- Written as a range of every row's end time and the status apart, the planner estimated the
-- window over every status and multiplied it by the share of auctions (0.60 in the benchmark's
-- data): at 30 million listings 34 % low when the hours ahead held few dropping names, and
-- closer when they held many, so the error moved with the time of day (bench/notes/101). The
-- estimate is now asked of this expression, null for every other status (plannedConditions in
-- packages/listings), whose histogram holds the auctions' end times alone. 1000 buckets, as for
-- the not-ended rule (migration 0024): a window of hours is a small part of weeks.
CREATE STATISTICS "listings_auction_end_stx" ON (CASE WHEN "status" = 'auction' THEN "auction_end_time" END) FROM "listings";
--> statement-breakpoint
ALTER STATISTICS "listings_auction_end_stx" SET STATISTICS 1000;
--> statement-breakpoint
-- Statistics are made by ANALYZE: without this, an upgraded database would plan the window
-- as before until the worker's next large batch. The same columns as 0024's: the sample is the
-- same 300 rows per unit of target.
ANALYZE "listings" ("status", "current_bid", "auction_end_time");
