-- Every sync rewrites each row of its source (last_checked_at). Free space on each page lets
-- PostgreSQL make those updates HOT: no new index entries when no indexed column changed.
ALTER TABLE "listings" SET (fillfactor = 80);
