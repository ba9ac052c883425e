-- VACUUM (and autovacuum) may cut empty pages off the end of a table, and to do so takes an
-- ACCESS EXCLUSIVE lock that PostgreSQL sends to every streaming replica, where searches wait
-- for it. Listings are deleted and re-added all the time, so the freed pages are reused anyway:
-- never truncating costs nothing here and keeps that lock away from hot replicas.
ALTER TABLE "listings" SET (vacuum_truncate = false);
