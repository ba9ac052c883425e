-- Two-character search terms: pg_trgm cannot serve LIKE '%ab%' (no trigram in two characters),
-- so a name's distinct two-character substrings get a GIN index of their own. A 2-character
-- term matches exactly when the name's bigrams contain it.
CREATE FUNCTION domain_bigrams(name text) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(DISTINCT substr(name, i, 2)), '{}') FROM generate_series(1, length(name) - 1) AS i $$;
--> statement-breakpoint
CREATE INDEX "listings_domain_name_bigrams_idx" ON "listings" USING gin (domain_bigrams("domain_name"));
--> statement-breakpoint
-- A finer histogram of names: the planner's estimate of a substring term's selectivity decides
-- between walking a sort index and collecting the term's matches first.
ALTER TABLE "listings" ALTER COLUMN "domain_name" SET STATISTICS 1000;
