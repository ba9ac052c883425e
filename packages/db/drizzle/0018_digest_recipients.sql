CREATE TABLE "digest_recipients" (
	"address" text PRIMARY KEY NOT NULL,
	"confirmed_at" timestamp (3) with time zone,
	"suppressed_at" timestamp (3) with time zone,
	"confirm_token_hash" text,
	"confirm_sent_at" timestamp (3) with time zone,
	"confirm_requested_at" timestamp (3) with time zone,
	CONSTRAINT "digest_recipients_confirm_token_hash_unique" UNIQUE("confirm_token_hash")
);
--> statement-breakpoint
-- Digests already set go to addresses nobody confirmed: each gets a confirmation mail (the
-- digest worker sends what is asked for here), and no digest until its owner clicks the link.
INSERT INTO "digest_recipients" ("address", "confirm_requested_at")
SELECT DISTINCT lower("email_to"), now() FROM "alerts" WHERE "email_digest" IS NOT NULL AND "email_to" IS NOT NULL;
