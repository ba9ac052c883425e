CREATE TABLE "watchlist_domains" (
	"watchlist_id" text NOT NULL,
	"domain_name" text NOT NULL,
	"added_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "watchlist_domains_watchlist_id_domain_name_pk" PRIMARY KEY("watchlist_id","domain_name")
);
--> statement-breakpoint
CREATE TABLE "watchlists" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"key_id" text,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "watchlists_owner_check" CHECK (("watchlists"."account_id" is not null) <> ("watchlists"."key_id" is not null))
);
--> statement-breakpoint
CREATE TABLE "name_registrations" (
	"domain_name" text PRIMARY KEY NOT NULL,
	"phase" text,
	"statuses" jsonb,
	"registrar_name" text,
	"registrar_iana_id" integer,
	"registered_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone,
	"registry_updated_at" timestamp (3) with time zone,
	"expected_drop_at" timestamp (3) with time zone,
	"checked_at" timestamp (3) with time zone,
	"last_outcome" text,
	"last_server" text,
	"last_attempt_at" timestamp (3) with time zone,
	"failures" integer DEFAULT 0 NOT NULL,
	"next_check_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "name_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "name_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"domain_name" text NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"kind" text NOT NULL,
	"source" text,
	"price" numeric(14, 2),
	"previous_price" numeric(14, 2),
	"phase" text,
	"previous_phase" text
);
--> statement-breakpoint
ALTER TABLE "listing_events" ADD COLUMN "watchlist_id" text;--> statement-breakpoint
ALTER TABLE "listing_events" ADD COLUMN "phase" text;--> statement-breakpoint
ALTER TABLE "listing_events" ADD COLUMN "expected_drop_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "watchlist_id" text;--> statement-breakpoint
ALTER TABLE "watchlist_domains" ADD CONSTRAINT "watchlist_domains_watchlist_id_watchlists_id_fk" FOREIGN KEY ("watchlist_id") REFERENCES "public"."watchlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlists" ADD CONSTRAINT "watchlists_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlists" ADD CONSTRAINT "watchlists_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "watchlist_domains_domain_name_idx" ON "watchlist_domains" USING btree ("domain_name");--> statement-breakpoint
CREATE INDEX "watchlists_account_id_idx" ON "watchlists" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "watchlists_key_id_idx" ON "watchlists" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "name_registrations_next_check_at_idx" ON "name_registrations" USING btree ("next_check_at");--> statement-breakpoint
CREATE INDEX "name_history_domain_name_idx" ON "name_history" USING btree ("domain_name","occurred_at");--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_watchlist_id_watchlists_id_fk" FOREIGN KEY ("watchlist_id") REFERENCES "public"."watchlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_watchlist_id_idx" ON "alerts" USING btree ("watchlist_id");