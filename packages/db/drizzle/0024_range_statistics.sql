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
-- A first load of an earlier release put in place of listings a copy whose statistics object
-- PostgreSQL had named after the load table (listings_load_<hex>_expr_stat); first loads now keep
-- the names. It takes its name back here, so that this statement and later migrations find it.
DO $$
DECLARE
  copied text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_statistic_ext WHERE stxrelid = 'listings'::regclass AND stxname = 'listings_not_ended_stx') THEN
    SELECT format('%I.%I', n.nspname, s.stxname) INTO copied
    FROM pg_statistic_ext s JOIN pg_namespace n ON n.oid = s.stxnamespace
    WHERE s.stxrelid = 'listings'::regclass AND s.stxname LIKE 'listings\_load\_%\_expr\_stat'
    LIMIT 1;
    IF copied IS NULL THEN
      CREATE STATISTICS listings_not_ended_stx ON (coalesce(auction_end_time, 'infinity'::timestamptz)) FROM listings;
    ELSE
      EXECUTE format('ALTER STATISTICS %s RENAME TO listings_not_ended_stx', copied);
    END IF;
  END IF;
END
$$;
--> statement-breakpoint
ALTER STATISTICS "listings_not_ended_stx" SET STATISTICS 1000;
--> statement-breakpoint
-- Statistics are made by ANALYZE: without this, an upgraded database would go on with the
-- estimates above until the worker's next large batch.
ANALYZE "listings" ("status", "current_bid", "auction_end_time");
