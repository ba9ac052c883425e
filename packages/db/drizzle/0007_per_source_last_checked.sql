-- last_checked_at moves from each row to its source's batch: a batch is the source's complete
-- listing set, so all its rows were seen at once, and a sync no longer rewrites unchanged rows
-- just to move a timestamp. Unchanged rows are now found by comparing the columns themselves,
-- so the content hash goes too.
CREATE TABLE "source_batches" (
	"source" text PRIMARY KEY NOT NULL,
	"applied_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
INSERT INTO "source_batches" ("source", "applied_at")
  SELECT "source", max("last_checked_at") FROM "listings" GROUP BY "source";
--> statement-breakpoint
ALTER TABLE "listings" DROP COLUMN "last_checked_at";--> statement-breakpoint
ALTER TABLE "listings" DROP COLUMN "content_hash";--> statement-breakpoint
-- The same bigrams, computed in a loop: 2.2 s instead of 5.5 s per million names, paid on every
-- insert. GIN removes repeated keys of one row itself, so the DISTINCT is not needed and the
-- existing index stays valid.
CREATE OR REPLACE FUNCTION domain_bigrams(name text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
DECLARE
  bigrams text[] := '{}';
BEGIN
  FOR i IN 1 .. length(name) - 1 LOOP
    bigrams := bigrams || substr(name, i, 2);
  END LOOP;
  RETURN bigrams;
END
$$;
