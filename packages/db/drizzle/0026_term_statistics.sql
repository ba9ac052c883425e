-- Statistics of the names for the planned total of a search term (`search=shop`).
--
-- The planner reads a substring's share off the names' histogram: the share of its entries
-- that hold the term. Migration 0006 gave domain_name 1000 entries, and 1000 names are a small
-- sample for a term in 1 % of them: at 5, 20 and 30 million listings `shop`'s planned total
-- moved from -26 % to +53 % from one refresh of the statistics to the next (bench/notes/100),
-- which is that sample's spread. 10,000 entries (PostgreSQL's largest target) cut it by a
-- factor of three (bench/notes/103).
--
-- Not on the column itself: every statement with a term would then read 10,000 entries while
-- it is planned, the page's too (an estimate of `shop` took 1.57 ms against 0.54 at 5M). This expression is the
-- same text, written apart so that it has statistics of its own, and only the planned total's
-- estimate is asked of it (plannedConditions in packages/listings), after the exact count
-- missed its budget.
--
-- With the column beside it: an object over expressions alone is built by every ANALYZE of the
-- table, so each group of the worker's refresh (refresh-statistics.ts) would sample 300 rows
-- per unit of its target, 3,000,000, for every column (5.7 -> 49.6 s at 5M). Naming domain_name
-- builds it only with that column's group. An object over two items needs a kind besides the
-- expression's own statistics: `ndistinct`, which nothing reads (no statement groups by the pair).
CREATE STATISTICS "listings_name_terms_stx" (ndistinct) ON "domain_name", ("domain_name" || '') FROM "listings";
--> statement-breakpoint
ALTER STATISTICS "listings_name_terms_stx" SET STATISTICS 10000;
--> statement-breakpoint
-- Statistics are made by ANALYZE: without this, an upgraded database would plan terms as
-- before until the worker's next large batch. ANALYZE samples 300 rows per unit of the
-- largest target among what it builds: this one samples 3,000,000 rows (the whole table
-- below that size), where domain_name alone sampled 300,000.
ANALYZE "listings" ("domain_name");
