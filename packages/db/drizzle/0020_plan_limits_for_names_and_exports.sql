ALTER TABLE "plans" ADD COLUMN "watch_limit" integer DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "rdap_refreshes_per_hour" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "export_rows_max" integer;--> statement-breakpoint
-- Free watches 100 names, asks for 20 registration checks an hour and exports at most 10,000 rows at a time;
-- pro watches 10,000, asks for 500 and exports without a row limit (its hourly allowance still counts rows).
UPDATE "plans" SET "export_rows_max" = 10000 WHERE "id" = 'free';--> statement-breakpoint
UPDATE "plans" SET "watch_limit" = 10000, "rdap_refreshes_per_hour" = 500 WHERE "id" = 'pro';
