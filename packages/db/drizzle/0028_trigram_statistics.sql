-- Statistics of the names' trigrams, for the planned total of a three-character search term
-- (`search=zyg`).
--
-- 0026 plans a term from a histogram of 10,000 names, and PostgreSQL never plans a pattern
-- below 1 row in 10,000: a term in 1 name in 6,600 (`zyg` at 20 and 30 million listings) was
-- planned 31-33 % low in every refresh, or up to 167 % high when a sample happened to hold it
-- (bench/notes/104, 105). A three-character term of letters and digits is exactly one of
-- pg_trgm's trigrams, so the share of names holding it is the share of names whose trigrams
-- include it, and PostgreSQL lists the most common elements of a tsvector with their shares:
-- about 12,800 trigrams from a sample of a million names, `zyg` among them (bench/notes/106).
--
-- The trigrams sampled apart. The object names a column besides its expression so that only an
-- ANALYZE naming that column builds it (0026 says why). has_hyphens is that column: a boolean,
-- whose own statistics are two shares however large its sample. Its target, the same as the
-- object's, gives it a group of its own in the worker's refresh (refresh-statistics.ts), which
-- samples 300 rows per unit of target: 1,000,200 rows. In domain_name's group the object would
-- be built from 3,000,000 rows, which held 1.7 GB more of the database server's memory and made
-- the refresh half again as long at 30 million (bench/notes/104); apart, it adds one ANALYZE of
-- about 13 s at 20 million, whose memory stays under domain_name's (bench/notes/106, 107).
ALTER TABLE "listings" ALTER COLUMN "has_hyphens" SET STATISTICS 3334;
--> statement-breakpoint
CREATE STATISTICS "listings_name_trigrams_stx" (ndistinct) ON "has_hyphens", (array_to_tsvector(show_trgm("domain_name"))) FROM "listings";
--> statement-breakpoint
ALTER STATISTICS "listings_name_trigrams_stx" SET STATISTICS 3334;
--> statement-breakpoint
-- Statistics are made by ANALYZE: without this, an upgraded database would plan these terms as
-- before until the worker's next large batch.
ANALYZE "listings" ("has_hyphens");
